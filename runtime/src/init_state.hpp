// Whether fiber::init ran in this process: a Pool refuses to start workers
// before it, since a worker that skips init would run the master's main.
#pragma once

namespace fiber::detail {
bool initialized();
}
