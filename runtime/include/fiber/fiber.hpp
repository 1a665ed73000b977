// The whole public API of fiber.
#pragma once

#include "fiber/async_result.hpp"
#include "fiber/errors.hpp"
#include "fiber/event.hpp"
#include "fiber/init.hpp"
#include "fiber/lock.hpp"
#include "fiber/manager.hpp"
#include "fiber/pool.hpp"
#include "fiber/pipe.hpp"
#include "fiber/process.hpp"
#include "fiber/queue.hpp"
#include "fiber/remote_object.hpp"
#include "fiber/resources.hpp"
#include "fiber/semaphore.hpp"
#include "fiber/serialize.hpp"
#include "fiber/shared.hpp"
#include "fiber/task.hpp"
