export * from "./organizations.ts";
export * from "./api-keys.ts";
export * from "./capture-sessions.ts";
export * from "./proofs.ts";
export * from "./events.ts";
export * from "./capture-templates.ts";
export * from "./webhooks.ts";
export * from "./template-snapshots.ts";
