/**
 * The five-year model of ADR 0055, printed by scripts/measure-capacity.ts from the D1 bytes it measured:
 * 1 million proofs a day, peaks three times the average, everything kept for ever, set against the
 * platform's published limits and prices (each figure with the page it comes from, read 2026-11-26).
 */

const PROOFS_PER_DAY = 1_000_000;
const PEAK_FACTOR = 3;
const YEARS = 5;
const DAY_S = 86_400;
const GB = 1000 ** 3;
/** Issue 31 point 2: D1 bytes a sealed 10-photo proof may keep once its record is in R2. */
const TARGET_BYTES = 3_000;

/** developers.cloudflare.com/d1/platform/limits/ (Workers Paid) and its FAQ on throughput. */
export const D1 = {
  databaseBytes: 10 * GB,
  /** 1 TB on the current page (ADR 0010's 250 GB was the older figure); raised on request. */
  accountBytes: 1000 * GB,
  databasesPerAccount: 50_000,
  queriesPerInvocation: 1_000,
  boundParameters: 100,
  /** "Each individual D1 database is inherently single-threaded": ~1,000 queries a second at 1 ms each. */
  queriesPerSecond: 1_000,
};

/** Two base-36 characters after an id's prefix name its D1 shard (src/db/shards.ts, docs/adr/0062): 1,296 codes. */
const SHARD_CODES = 36 ** 2;

/** developers.cloudflare.com/queues/platform/limits/ */
const QUEUES = { messagesPerSecondPerQueue: 5_000, batchMessages: 100, consumerConcurrency: 250 };

/** developers.cloudflare.com/containers/platform/limits/ (account) and wrangler.toml (ours). */
const CONTAINERS = { accountVcpu: 1_500, instanceVcpu: 2, instanceGib: 8, ourMaxInstances: 5, jobsPerInstance: 2 };

/** Prices in USD beyond the Workers Paid allowances (the allowances are ignored: this is the margin cost). */
const PRICE = {
  // developers.cloudflare.com/d1/platform/pricing/
  d1RowWritten: 1.0 / 1e6,
  d1RowRead: 0.001 / 1e6,
  d1GbMonth: 0.75,
  // developers.cloudflare.com/r2/pricing/ (Standard storage)
  r2GbMonth: 0.015,
  r2ClassA: 4.5 / 1e6,
  r2ClassB: 0.36 / 1e6,
  // developers.cloudflare.com/queues/platform/pricing/ (an operation per 64 KB written, read or deleted)
  queueOperation: 0.4 / 1e6,
  // developers.cloudflare.com/workers/platform/pricing/
  workerRequest: 0.3 / 1e6,
  // developers.cloudflare.com/durable-objects/platform/pricing/ (SQLite storage backend)
  doRowWritten: 1.0 / 1e6,
  doGbMonth: 0.2,
  doRequest: 0.15 / 1e6,
  // developers.cloudflare.com/containers/pricing/
  containerVcpuSecond: 0.00002,
  containerGibSecond: 0.0000025,
};

/**
 * D1 statements one sealed 10-photo proof makes. Measured by test/api/capacity-statements.test.ts through
 * the real handlers (writes: creation 3, uploads 20, completion 14, sealing 8; reads 50), plus what that test
 * does not run, counted from src/storage/: two events published and delivered (delivery insert, dispatch mark,
 * attempt start and outcome), the report's row, and the sweeps' batched share (under one statement a proof:
 * the re-hash cursor, the archive's chunks). The prints go to the similarity index, a Durable Object, not D1
 * (docs/adr/0064); the re-hash writes no row of a proof whose objects match (0066).
 */
export const WRITE_STATEMENTS = { creation: 3, uploads: 20, completion: 14, sealing: 8, webhooks: 10, report: 1, sweeps: 1 };
/** Reads: 50 measured, about 10 more for deliveries and the report (counted). */
const READ_STATEMENTS = 60;
/**
 * Objects of the same path. Class A (writes and lists): 10 uploads, 10 signed copies, 10 thumbnails, 4 artifacts,
 * their hashes (ADR 0066), the sealed record (0065), the report, the verify-by-hash index of 10 signed files and the
 * report (0062), the sealed-before index of 10 originals and 10 signed copies (0065) and its 10 look-ups at sealing,
 * 2 archived deliveries and a share of the archive's chunks (0067): about 80. Class B: about 25 reads on the path,
 * and the re-hash's 12 a round.
 */
const R2_PER_PROOF = { classA: 80, classB: 37, bytes: 10 * (4.2e6 + 4.2e6 + 60e3) + 2.4e6 + 20e3 };
const QUEUE_OPERATIONS = 3 * 4; // sealing, report and two webhook messages: written, read, deleted
const WORKER_REQUESTS = 30; // API calls, capture page and uploads, queue and cron invocations' share
/** docs/benchmarks.md: sealer job ~0.9 s of CPU (all threads), report ~0.8 s; wall time ~2 s a job. */
const SEALER = { cpuSeconds: 1.7, wallSeconds: 2 };

const fmt = (value: number, digits = 0) => value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
const usd = (value: number) => `$${value < 0.001 ? value.toExponential(2) : fmt(value, 4)}`;

/** developers.cloudflare.com/durable-objects/platform/limits/: a SQLite-backed object stores up to 10 GB. */
const DURABLE_OBJECT_BYTES = 10 * GB;

/** What scripts/measure-capacity.ts measured for one sealed 10-photo proof. */
export interface MeasuredProof {
  /** D1 bytes at rest: after 30 days, its events and deliveries in the R2 archive. */
  d1Bytes: number;
  /** D1 rows written (inserted rows with their index entries, plus updated rows). */
  d1RowsWritten: number;
  /** Bytes in its organization's similarity index, a Durable Object (docs/adr/0064). */
  similarityIndexBytes: number;
  /** Rows written there: a file row and 24 band entries a photo. */
  similarityIndexRowsWritten: number;
}

/** Prints the model as Markdown tables. */
export function printFiveYearModel({
  d1Bytes: d1BytesPerProof,
  d1RowsWritten: rowsWrittenPerProof,
  similarityIndexBytes,
  similarityIndexRowsWritten,
}: MeasuredProof): void {
  const statements = Object.values(WRITE_STATEMENTS).reduce((sum, n) => sum + n, 0);
  const average = PROOFS_PER_DAY / DAY_S;
  const peak = average * PEAK_FACTOR;
  const d1PerDay = PROOFS_PER_DAY * d1BytesPerProof;
  const fiveYears = d1PerDay * 365 * YEARS;
  const proofsPerDatabaseSecond = D1.queriesPerSecond / (statements + READ_STATEMENTS);
  const sealerInstances = Math.ceil((peak * SEALER.wallSeconds) / CONTAINERS.jobsPerInstance);
  const shardsFiveYears = fiveYears / (D1.databaseBytes * 0.7);
  const shardsFiveYearsAtTarget = (PROOFS_PER_DAY * TARGET_BYTES * 365 * YEARS) / (D1.databaseBytes * 0.7);
  const enoughCodes = (shards: number) => (shards <= SHARD_CODES ? "enough" : "too few");
  console.log(`\n## Five years at ${fmt(PROOFS_PER_DAY)} proofs a day (average ${fmt(average, 1)}/s, peak ${fmt(peak, 1)}/s), kept for ever`);
  console.log(`D1 write statements a proof (measured and counted, ADR 0055): ${statements} (${JSON.stringify(WRITE_STATEMENTS)}); reads ~${READ_STATEMENTS}`);
  console.log("| Limit | Figure | Where it bites | What the design does |");
  console.log("| --- | ---: | --- | --- |");
  console.log(
    `| D1 database size | 10 GB | one database at 70 % in ${fmt(((D1.databaseBytes * 0.7) / d1PerDay) * 24, 1)} hours (${fmt(d1PerDay / GB, 1)} GB a day) | shards by organization, closed at 70 % (built, ADR 0062); a sealed proof's files, object checks, prints and old events leave D1 (ADR 0064 to 0067); an organization past one shard (${fmt((D1.databaseBytes * 0.7) / d1BytesPerProof)} proofs) writes to a new shard by period (built, ADR 0070) |`,
  );
  console.log(
    `| D1 storage per account | 1 TB | full in ${fmt(D1.accountBytes / d1PerDay)} days; five years need ${fmt(fiveYears / 1e12, 1)} TB | ${d1BytesPerProof <= TARGET_BYTES ? "within the 3 KB target" : "above the 3 KB target"}; the raise requested at 70 % of 1 TB |`,
  );
  console.log(
    `| D1 databases per account | 50,000 | ${fmt(shardsFiveYears)} shards at 70 % in five years (${fmt(shardsFiveYearsAtTarget)} at 3 KB a proof) | within the limit; the account's storage bites first; ${fmt(SHARD_CODES)} shard codes: ${enoughCodes(shardsFiveYearsAtTarget)} at 3 KB, ${enoughCodes(shardsFiveYears)} today |`,
  );
  console.log(
    `| D1 throughput, one database | ~1,000 queries/s | ${fmt(proofsPerDatabaseSecond, 1)} proofs/s a database; peak needs ${Math.ceil(peak / proofsPerDatabaseSecond)} databases | writes spread over shards by organization (built, ADR 0062); an organization above one shard's rate: several write shards sharing a period (ADR 0070; one write shard at a time is built) |`,
  );
  console.log(
    `| D1 queries per invocation | 1,000 | a sweep visiting every shard | a message per shard on the proof-sweeps queue, each its own invocation (built, ADR 0062) |`,
  );
  console.log(`| D1 bound parameters | 100 | id lists and multi-row inserts | chunked inserts, json_each for id lists |`);
  console.log(
    `| Similarity index | 10 GB a Durable Object | one per organization and mode: ${fmt(DURABLE_OBJECT_BYTES / similarityIndexBytes)} sealed 10-photo proofs each | an index per period: one per write shard of the organization (built, ADR 0070) |`,
  );
  console.log(
    `| Queues throughput | 5,000 msg/s a queue | peak ${fmt(peak * 4, 0)} msg/s (4 messages a proof) | ${fmt(QUEUES.messagesPerSecondPerQueue / (peak * 4), 0)}× headroom; batches of ≤ ${QUEUES.batchMessages}, ${QUEUES.consumerConcurrency} consumers |`,
  );
  console.log(
    `| Containers | 1,500 vCPU an account; ours max_instances = ${CONTAINERS.ourMaxInstances} | peak needs ${sealerInstances} instances of ${CONTAINERS.instanceVcpu} vCPU (${sealerInstances * CONTAINERS.instanceVcpu} vCPU) | raise max_instances with the sealing consumers' concurrency (ADR 0011) |`,
  );
  console.log(
    `| R2 | no size ceiling | ${fmt((R2_PER_PROOF.bytes * PROOFS_PER_DAY) / 1e12, 0)} TB a day, ${fmt((R2_PER_PROOF.bytes * PROOFS_PER_DAY * 365 * YEARS) / 1e15, 0)} PB in five years | the dominant cost (below) |`,
  );
  console.log(`| Workers requests | no documented ceiling on Paid | ${fmt(peak * WORKER_REQUESTS, 0)} requests/s at peak | billed per request |`);

  const storageMonthsAverage = (YEARS * 12) / 2;
  const perProof = {
    d1Writes: rowsWrittenPerProof * PRICE.d1RowWritten,
    d1Reads: READ_STATEMENTS * 10 * PRICE.d1RowRead,
    d1Storage: (d1BytesPerProof / GB) * PRICE.d1GbMonth * storageMonthsAverage,
    r2Operations: R2_PER_PROOF.classA * PRICE.r2ClassA + R2_PER_PROOF.classB * PRICE.r2ClassB,
    r2Storage: (R2_PER_PROOF.bytes / GB) * PRICE.r2GbMonth * storageMonthsAverage,
    queues: QUEUE_OPERATIONS * PRICE.queueOperation,
    workers: WORKER_REQUESTS * PRICE.workerRequest,
    similarityIndex:
      similarityIndexRowsWritten * PRICE.doRowWritten + (similarityIndexBytes / GB) * PRICE.doGbMonth * storageMonthsAverage + 2 * PRICE.doRequest,
    containers:
      SEALER.cpuSeconds * PRICE.containerVcpuSecond + (SEALER.wallSeconds / CONTAINERS.jobsPerInstance) * CONTAINERS.instanceGib * PRICE.containerGibSecond,
  };
  const total = Object.values(perProof).reduce((sum, n) => sum + n, 0);
  console.log(`\n## Cost per proof (storage for the average ${storageMonthsAverage} months a proof is kept within the five years)`);
  console.log("| Item | USD |");
  console.log("| --- | ---: |");
  for (const [item, cost] of Object.entries(perProof)) console.log(`| ${item} | ${usd(cost)} |`);
  console.log(`| **total** | **${usd(total)}** |`);
  console.log(`D1 rows written a proof (inserted rows with their index entries, plus updated rows): ${fmt(rowsWrittenPerProof)}`);
  console.log(`Similarity index rows written a proof: ${fmt(similarityIndexRowsWritten)}`);
}
