import { bucket, type ObjectStore, themeLogoKey } from "./bucket.ts";

/** Stores a theme's logo (over the previous one) and returns its key, which the theme's row records. */
export async function storeThemeLogo(store: ObjectStore, themeId: string, bytes: Uint8Array, contentType: string): Promise<string> {
  const key = themeLogoKey(themeId);
  await bucket(store).put(key, bytes, { httpMetadata: { contentType } });
  return key;
}
