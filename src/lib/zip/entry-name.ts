/**
 * Why `name` must not be written as an entry of an archive someone will extract, or null when it is safe: a relative
 * path of plain segments, which no extractor can take outside its folder (zip-slip: a `..` segment, a leading `/`, a
 * drive letter, a backslash that Windows tools read as a separator), with no NUL or control character, and none of
 * the names in `taken` (compared without case, as Windows and macOS folders do), so it never replaces another entry
 * on extraction. Entry names from stored data pass here first (forger session 7, G16).
 */
export function unsafeEntryName(name: string, taken: ReadonlySet<string>): string | null {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses.
  if (/[\u0000-\u001f\u007f]/.test(name)) return "a control character";
  if (name.includes("\\")) return "a backslash";
  if (name.startsWith("/")) return "an absolute path";
  if (/^[A-Za-z]:/.test(name)) return "a drive letter";
  if (name.split("/").some((segment) => segment === "" || segment === "." || segment === "..")) return "an empty, `.` or `..` segment";
  if ([...taken].some((other) => other.toLowerCase() === name.toLowerCase())) return "the name of another entry";
  return null;
}
