#include "harness/judge/replay_rounds.h"

#include <algorithm>
#include <string>
#include <utility>

#include "harness/judge/perturbation.h"

namespace tl {
namespace {

// An edge while its rounds run: its jobs, and the tries left for round 2.
struct PlannedEdge {
  std::size_t op;
  std::size_t position;
  std::size_t parent;
  std::size_t local_plain;  // round 1's job of the op's local replay over its saved parents
  std::size_t first_try;    // round 1's job of the first try
  std::size_t evaluated;    // round 1's job of what the first try must give (ReplayKind::Evaluated)
  std::vector<Payload> later_tries;
  bool changed = false;
  std::string error;
};

struct FirstRound {
  std::vector<ReplayJob> jobs;
  std::vector<std::pair<std::size_t, std::size_t>> plain;  // (op, job)
  std::vector<PlannedEdge> edges;
};

std::size_t add(std::vector<ReplayJob>& jobs, ReplayJob job) {
  jobs.push_back(std::move(job));
  return jobs.size() - 1;
}

ReplayJob local_job(std::size_t op, std::optional<ReplayJob::Replacement> replacement = std::nullopt,
                    ReplayKind kind = ReplayKind::Local) {
  return {.op = op, .kind = kind, .replacement = std::move(replacement), .limit = kPerturbedElements};
}

FirstRound plan_first_round(const Trace& trace, const std::vector<CapturedNode>& graph) {
  FirstRound round;
  for (const Op& op : trace.ops) {
    if (op.kind == OpKind::Compute || op.kind == OpKind::View)
      round.plain.emplace_back(op.index, add(round.jobs, {.op = op.index}));
  }
  for (const Op& op : trace.ops) {
    // A view's replay reads its parent by construction: perturbing it tells nothing more.
    if (op.kind != OpKind::Compute) continue;
    std::optional<std::size_t> local_plain;
    for (const ParentRef& parent : op.parents) {
      if (graph[parent.op].constant) continue;  // a constant is part of the op's definition
      if (!local_plain) local_plain = add(round.jobs, local_job(op.index));
      std::vector<Payload> tries = perturbation_tries(*trace.ops[parent.op].out);
      const ReplayJob::Replacement replacement{parent.position, parent.op, tries.front()};
      const std::size_t first = add(round.jobs, local_job(op.index, replacement));
      const std::size_t evaluated = add(round.jobs, local_job(op.index, replacement, ReplayKind::Evaluated));
      tries.erase(tries.begin());
      round.edges.push_back({op.index, parent.position, parent.op, *local_plain, first, evaluated, std::move(tries)});
    }
  }
  return round;
}

// Whether a try's result differs from the local plain replay (an error is kept on the edge).
void observe(PlannedEdge& edge, const ReplayResult& plain, const ReplayResult& tried) {
  if (!tried.value)
    edge.error = tried.error;
  else if (plain.value)
    edge.changed = edge.changed || !compare(*plain.value, *tried.value).equal;
}

// The engine's results of `jobs`, or why there are none: its own failure, or a count that is not the
// jobs'.
ReplayRun evaluate(const LiveGraph& live, const Trace& trace, const std::vector<ReplayJob>& jobs) {
  ReplayRun run = live.replay(trace, jobs);
  if (run.failure.empty() && run.results.size() != jobs.size()) {
    run.failure = "the engine returned " + std::to_string(run.results.size()) + " replay results for " +
                  std::to_string(jobs.size()) + " jobs";
  }
  return run;
}

// Whether a plain replay's value is the op's saved payload.
bool replays(const Op& op, const ReplayResult& result) { return result.value && compare(*op.out, *result.value).equal; }

}  // namespace

ReplayRounds run_replay_rounds(const Trace& trace, const LiveGraph& live, const std::vector<CapturedNode>& graph) {
  ReplayRounds rounds;
  FirstRound first = plan_first_round(trace, graph);
  ReplayRun run = evaluate(live, trace, first.jobs);
  if (!run.failure.empty()) {
    rounds.failure = run.failure;
    return rounds;
  }
  const std::vector<ReplayResult>& results = run.results;
  std::vector<ReplayJob> second;
  // Where one op whose payload is eager's differs, every such op is rebuilt as eager computed it,
  // all in one schedule.
  std::vector<std::pair<std::size_t, std::size_t>> eager_jobs;  // (its place in first.plain, job)
  const bool any_differs = std::any_of(first.plain.begin(), first.plain.end(), [&](const auto& plain) {
    return graph[plain.first].from_eager && !replays(trace.ops[plain.first], results[plain.second]);
  });
  for (std::size_t k = 0; any_differs && k < first.plain.size(); ++k) {
    const std::size_t index = first.plain[k].first;
    if (graph[index].from_eager) eager_jobs.emplace_back(k, add(second, {.op = index, .kind = ReplayKind::AsEager}));
  }
  std::vector<std::pair<std::size_t, std::size_t>> later_jobs;  // (edge, job)
  for (std::size_t e = 0; e < first.edges.size(); ++e) {
    PlannedEdge& edge = first.edges[e];
    observe(edge, results[edge.local_plain], results[edge.first_try]);
    if (edge.changed || !edge.error.empty() || !results[edge.local_plain].value) continue;
    for (Payload& tried : edge.later_tries)
      later_jobs.emplace_back(
          e, add(second, local_job(edge.op, ReplayJob::Replacement{edge.position, edge.parent, std::move(tried)})));
  }
  std::vector<ReplayResult> later;
  if (!second.empty()) {
    ReplayRun again = evaluate(live, trace, second);
    if (!again.failure.empty()) {
      rounds.failure = again.failure;
      return rounds;
    }
    later = std::move(again.results);
  }
  for (const auto& [index, job] : first.plain) rounds.replays.push_back({index, results[job]});
  for (const auto& [k, job] : eager_jobs) {  // an op that replayed over its parents keeps that verdict
    OpReplay& replay = rounds.replays[k];
    if (!replays(trace.ops[replay.op], replay.result)) replay = {replay.op, std::move(later[job]), true};
  }
  for (const auto& [e, job] : later_jobs) observe(first.edges[e], results[first.edges[e].local_plain], later[job]);
  for (const PlannedEdge& edge : first.edges)
    rounds.edges.push_back({edge.op, edge.parent, results[edge.local_plain], results[edge.first_try], results[edge.evaluated],
                            edge.changed, edge.error});
  return rounds;
}

}  // namespace tl
