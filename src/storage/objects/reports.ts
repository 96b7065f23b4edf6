import { bucket, deleteObjects, type ObjectStore } from "./bucket.ts";

/**
 * Stores a report run's PDF under its own key (reportKey), written once: a run never writes over another's,
 * and only the one its proof_reports row records is ever served (docs/adr/0044).
 */
export async function storeReport(store: ObjectStore, key: string, pdf: Uint8Array): Promise<void> {
  await bucket(store).put(key, pdf, { httpMetadata: { contentType: "application/pdf" } });
}

/** Deletes a report run's PDF that was recorded nowhere (another run's was first). */
export async function discardReport(store: ObjectStore, key: string): Promise<void> {
  await deleteObjects(store, [key]);
}
