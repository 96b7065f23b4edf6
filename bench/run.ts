/**
 * `npm run bench`: sealing speed, as ratios to baselines measured in the same run on the same machine.
 *   - baselines: SHA-256 of the same 40 MB, a bare C2PA sign of one 4 MB file, and ten bare signs in a row
 *     measured just before each sealer job (the ratio is taken run by run);
 *   - the sealer alone: one job of 10 photos of 4 MB, storage in another process;
 *   - end to end: completion of a capture of the same photos (test mode) until the proof is sealed, and
 *     the same sealer job against that stack's own storage, to set it against (bench/stack-storage.ts);
 *   - for both, where the time goes (bench/sealing.ts);
 *   - the sealed PDF report of the same 10 photos, as a ratio to that sealer job, and its size (bench/report.ts);
 *   - the API: p50 of an authenticated read and a creation as ratios to /health (bench/api.ts);
 *   - load: N concurrent captures of 3 photos, proofs sealed per second and completion → sealed p50/p95
 *     (bench/load-captures.ts).
 */
import { startStack } from "../test/e2e/support/stack.ts";
import { benchApi, printApiBench, type ApiBench } from "./api.ts";
import { benchLoad, printLoadBench, type LoadBench } from "./load-captures.ts";
import { benchEndToEnd, benchSealer, benchStackStorageJob, printSealingBench } from "./sealing.ts";
import { benchReport, printReportBench } from "./report.ts";

const sealer = await benchSealer();
const report = await benchReport(sealer.job.ms);
const stack = await startStack();
let endToEnd: Awaited<ReturnType<typeof benchEndToEnd>>;
let stackJob: Awaited<ReturnType<typeof benchStackStorageJob>>;
let api: ApiBench;
let load: LoadBench;
try {
  endToEnd = await benchEndToEnd(stack);
  stackJob = await benchStackStorageJob(stack);
  api = await benchApi(stack);
  load = await benchLoad(stack);
} finally {
  await stack.stop();
}
printSealingBench({ ...sealer, endToEnd, stackJob });
printReportBench(report);
printApiBench(api);
printLoadBench(load);
