/**
 * The V8 options the sealer process runs with (sealer/Dockerfile's CMD, `npm run dev`'s sealer in
 * scripts/dev.ts, and the bench's sealer process, bench/sealer-process.ts; sealer/test/node-flags.test.ts
 * keeps the Dockerfile in step).
 *
 * `--initial-old-space-size`: each job passes some 80 MB of 4 MB buffers through the event loop's heap
 * while its JavaScript objects stay about 15 MB. With V8's default, small old-generation limit the main
 * isolate started a full mark-compact about every 60 ms (75 during 15 bench jobs, their concurrent
 * marking some 100-200 ms of CPU a job on V8's helper threads); starting the limit at 256 MB leaves 22,
 * and the job takes about 8 % less time (measured with the bench's job, docs/adr/0034). It raises no
 * ceiling: the heap still grows only as far as the data held, well within the container's 8 GiB.
 * Not allowed in NODE_OPTIONS, hence on the command line.
 */
export const SEALER_NODE_FLAGS = ["--initial-old-space-size=256"];
