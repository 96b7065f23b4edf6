/** The PDF reading the sealer shares with the offline verifier and the Worker (shared/pdf/). */
export * from "../../../shared/pdf/pdf-revision.ts";
