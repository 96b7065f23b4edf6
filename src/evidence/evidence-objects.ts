/**
 * The data objects a proof's evidence record covers (docs/adr/0022), by their names in the package:
 * manifest.json, proof.tsr and every file of revocation/ (the CRLs captured at sealing and their index),
 * read from the proof's artifacts in storage, where they have the same names under the run's prefix.
 * The offline verifier hashes the package's entries of the same names.
 */
export async function evidenceObjects(bucket: R2Bucket, artifactPrefix: string): Promise<Uint8Array[]> {
  const revocation: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix: `${artifactPrefix}revocation/`, cursor });
    revocation.push(...page.objects.map((object) => object.key));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  const keys = [`${artifactPrefix}manifest.json`, `${artifactPrefix}proof.tsr`, ...revocation];
  return Promise.all(
    keys.map(async (key) => {
      const object = await bucket.get(key);
      if (object === null) throw new Error(`missing artifact ${key}`);
      return new Uint8Array(await object.arrayBuffer());
    }),
  );
}
