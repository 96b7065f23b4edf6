/**
 * The `--rights` option of `npm run admin -- create-key`, as the operator API takes it: absent, the API's
 * default (all five rights); empty (`--rights ""`), no rights at all, as `rights: []` gives through the API
 * (issue 28: an empty value was taken for an absent one and issued all five); otherwise comma-separated
 * names. An empty name between commas is refused rather than dropped, since it is a typo, not a choice.
 * Unknown names are left to the API, which refuses them (422 `validation_failed` on `/rights/N`).
 */
export function parseRightsOption(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === "") return [];
  const rights = value.split(",").map((right) => right.trim());
  if (rights.includes("")) throw new Error(`--rights "${value}" has an empty name: write rights as a,b (or --rights "" for none).`);
  return rights;
}
