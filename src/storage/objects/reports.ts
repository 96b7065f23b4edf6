import { bucket, deleteObjects, type ObjectStore, readObjectBytes } from "./bucket.ts";

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

/**
 * The recorded reports as stored now, by their names in the package (`report.pdf`, `pair-report.pdf`): what the
 * verification core checks. A recorded report whose object is missing is there empty, so that it fails.
 */
export async function readStoredReports(store: ObjectStore, reports: { kind: "proof" | "pair"; objectKey: string }[]): Promise<Map<string, Uint8Array>> {
  const read = await Promise.all(
    reports.map(
      async (report): Promise<[string, Uint8Array]> => [
        report.kind === "pair" ? "pair-report.pdf" : "report.pdf",
        (await readObjectBytes(store, report.objectKey)) ?? new Uint8Array(),
      ],
    ),
  );
  return new Map(read);
}
