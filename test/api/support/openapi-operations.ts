const METHODS = ["get", "post", "put", "patch", "delete"] as const;

/** Every operation of an OpenAPI document, with its method and path. */
export function operations(document: any) {
  const out: { method: string; path: string; operation: any }[] = [];
  for (const [path, item] of Object.entries<any>(document.paths)) {
    for (const method of METHODS) if (item[method]) out.push({ method, path, operation: item[method] });
  }
  return out;
}
