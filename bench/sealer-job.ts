/**
 * The sealer half of `npm run bench` alone (`node bench/sealer-job.ts`): the baselines and the sealer job,
 * with the same rows as the full bench, in a minute instead of starting a `npm run dev` stack. For
 * measuring a change to the sealer; the full bench stays the figure of record.
 */
import { benchSealer, printSealerBench } from "./sealing.ts";

printSealerBench(await benchSealer());
