// What fiber ps and fiber top show of a run, as one JSON object: its
// record, its workers as its engine records them, and its master's numbers
// (live from the control socket, or those it wrote as it ended). Not
// thread-safe (a ControlClient's).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backend/run_records.hpp"
#include "control_client.hpp"
#include "run_record.hpp"

namespace fiber::cli {

/// Seconds since the Unix epoch.
long long Now();

/// Every run's workers as its engine records them, asking each engine once
/// for all its runs (one squeue per Slurm cluster however many runs).
backend::RunsWorkers ListWorkers(const std::vector<RunRecord>& runs);

/// A run as fiber ps lists it: its record, its engine's records (placed,
/// from ListWorkers) and its master's "status" numbers.
nlohmann::json Describe(ControlClient& control, const RunRecord& r, const backend::RunsWorkers& placed);

/// One run in full, as fiber ps RUN and fiber top show it: Describe's
/// fields, its elapsed seconds, and the master's "run-status"
/// (runs/control_protocol.hpp): its pools and its workers, each with where
/// it runs and why it waits as its engine says. With no master to ask, the
/// workers are the engine's records ("workers_from": "engine") and "note"
/// says why; null when the engine keeps none.
nlohmann::json DescribeInFull(ControlClient& control, const RunRecord& r, const backend::RunsWorkers& placed);

}  // namespace fiber::cli
