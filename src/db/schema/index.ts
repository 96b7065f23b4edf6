export * from "./organizations.ts";
export * from "./api-keys.ts";
