import type { z } from "zod";

/**
 * The value as `shape` gives it when the value is of that shape, null otherwise, for JSON read from storage, which
 * anyone able to write to the bucket can shape. Null too when checking throws: zod, checking an object's property
 * that holds a huge array of failing elements, gathers their issues with one spread call that overflows the stack
 * (forger session 8, H0 and H4), a RangeError rather than a failed check.
 */
export function ofStoredShape<Shape extends z.ZodType>(shape: Shape, value: unknown): z.output<Shape> | null {
  try {
    const parsed = shape.safeParse(value);
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
