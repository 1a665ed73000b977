// The one lookup from a run's backend name (plain data, as its record
// holds it) to what its engine does for the command: its RunRecords and,
// where the engine can run the program as master (master: cluster), its
// MasterPlacement. Adding an engine adds a line here. Thread-safe.
#pragma once

#include "backend/master_placement.hpp"
#include "backend/run_records.hpp"

namespace fiber::backend {

/// The records of the run's engine; nullptr for a backend whose workers
/// leave none outside the run's directory (local).
const RunRecords* RecordsOf(const RunPlace& run);

/// Where the run's engine places a master in the cluster; nullptr when it
/// cannot.
const MasterPlacement* PlacementOf(const RunPlace& run);

}  // namespace fiber::backend
