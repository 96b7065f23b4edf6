import { unstable_readConfig } from "wrangler";

export type WranglerConfig = ReturnType<typeof unstable_readConfig>;

/** Reads wrangler.toml as wrangler itself resolves it: `environment` undefined gives the top level. */
export function readWranglerConfig(environment?: string): WranglerConfig {
  return unstable_readConfig({ config: "wrangler.toml", env: environment });
}

/** The vars the Worker cannot run without: every link it issues is built on the two URLs. */
export const REQUIRED_PRODUCTION_VARS = ["API_BASE_URL", "CAPTURE_BASE_URL", "BUILD_COMMIT"] as const;

/** Hosts that only make sense on the developer's machine (127.0.0.0/8, ::1, localhost and its subdomains). */
export function isLoopbackHostname(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, "");
  return host === "localhost" || host.endsWith(".localhost") || /^127\.\d+\.\d+\.\d+$/.test(host) || host === "::1" || host === "0.0.0.0";
}

/** Every binding of a configuration, by kind, as `kind:name` (the name the Worker reads from `env`). */
export function bindingNames(config: WranglerConfig): string[] {
  return [
    ...config.d1_databases.map((d1) => `d1:${d1.binding}`),
    ...config.r2_buckets.map((r2) => `r2:${r2.binding}`),
    ...config.durable_objects.bindings.map((binding) => `durable_object:${binding.name}`),
    ...(config.queues.producers ?? []).map((producer) => `queue_producer:${producer.binding}`),
    ...(config.queues.consumers ?? []).map((consumer) => `queue_consumer:${consumer.queue}`),
    ...(config.containers ?? []).map((container) => `container:${container.class_name}`),
    ...(config.assets?.binding ? [`assets:${config.assets.binding}`] : []),
    ...config.triggers.crons.map((cron) => `cron:${cron}`),
  ].sort();
}

/**
 * What would make a production deploy go wrong without any error from wrangler: a var or binding the top
 * level has and production lacks (environments inherit neither), a base URL that is not https or points
 * at loopback, a custom domain route missing for either host, or the workers.dev host left on.
 */
export function productionConfigurationProblems(production: WranglerConfig, topLevel: WranglerConfig): string[] {
  const problems: string[] = [];
  const vars = production.vars as Record<string, unknown>;
  for (const name of new Set([...REQUIRED_PRODUCTION_VARS, ...Object.keys(topLevel.vars)])) {
    if (typeof vars[name] !== "string" || vars[name] === "") problems.push(`var ${name} is missing`);
  }
  const routePatterns = (production.routes ?? []).map((route) => (typeof route === "string" ? route : route.pattern));
  for (const name of ["API_BASE_URL", "CAPTURE_BASE_URL"]) {
    const value = vars[name];
    if (typeof value !== "string" || !URL.canParse(value)) continue;
    const url = new URL(value);
    if (url.protocol !== "https:") problems.push(`var ${name} is not https: ${value}`);
    if (isLoopbackHostname(url.hostname)) problems.push(`var ${name} points at loopback: ${value}`);
    const customDomain = (production.routes ?? []).some(
      (route) => typeof route !== "string" && route.pattern === url.hostname && "custom_domain" in route && route.custom_domain === true,
    );
    if (!customDomain) problems.push(`no custom domain route for ${url.hostname} (${name}); routes: ${routePatterns.join(", ") || "none"}`);
  }
  const productionBindings = new Set(bindingNames(production));
  for (const binding of bindingNames(topLevel)) {
    if (!productionBindings.has(binding)) problems.push(`binding ${binding} is missing`);
  }
  // Two consumers' batch shapes differ on purpose, the local queue running one batch at a time: the sealing
  // consumer takes 10 proofs in one batch locally where production takes 10 invocations of one (ADR 0050;
  // sealing-concurrency.e2e checks both shapes give the same 10); the sweeps consumer takes a tick's shards in
  // one batch locally where production gives each shard an invocation, and its query budget, of its own (ADR 0062).
  const shapeLeftOut = (consumer: { queue: string; max_batch_size?: number; max_batch_timeout?: number; max_concurrency?: number }) => {
    if (consumer.queue === "proof-sealing") return { ...consumer, max_batch_size: undefined, max_concurrency: undefined };
    if (consumer.queue === "proof-sweeps") return { ...consumer, max_batch_size: undefined, max_batch_timeout: undefined };
    return consumer;
  };
  problems.push(
    ...settingDifferences(
      "queue consumer",
      (topLevel.queues.consumers ?? []).map(shapeLeftOut),
      (production.queues.consumers ?? []).map(shapeLeftOut),
      "queue",
    ),
  );
  problems.push(...settingDifferences("container", topLevel.containers ?? [], production.containers ?? [], "class_name"));
  if (production.workers_dev !== false) problems.push("workers_dev is not false (a second public host)");
  return problems;
}

/**
 * Settings that must not drift between the top level and production (a consumer's concurrency, batch
 * and dead-letter queue; a container's size and count): each entry compared whole, keyed by `key`.
 * A container's `name` is left out: wrangler derives it from the environment.
 */
function settingDifferences<T extends object>(kind: string, topLevel: T[], production: T[], key: keyof T): string[] {
  const canonical = (entry: T) =>
    JSON.stringify(
      Object.fromEntries(
        Object.entries(entry)
          .filter(([name]) => name !== "name")
          .sort(([a], [b]) => a.localeCompare(b)),
      ),
    );
  const productionByKey = new Map(production.map((entry) => [entry[key], entry]));
  return topLevel.flatMap((entry) => {
    const twin = productionByKey.get(entry[key]);
    if (twin === undefined || canonical(twin) === canonical(entry)) return [];
    return [`${kind} ${String(entry[key])} differs: ${canonical(entry)} at the top level, ${canonical(twin)} in production`];
  });
}
