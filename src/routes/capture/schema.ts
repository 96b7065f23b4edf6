import { z } from "@hono/zod-openapi";

export const TokenParams = z.object({ token: z.string().min(1).max(200) });
export const FileParams = TokenParams.extend({ fileId: z.string().min(1).max(80) });

export const DeclareFileBody = z.strictObject({
  step_id: z.string().min(1).max(40),
  content_type: z.string().min(1).max(100),
  size: z.number().int().min(1),
  sha256: z.string().regex(/^[0-9a-fA-F]{64}$/),
  capture: z.strictObject({
    method: z.enum(["camera", "file"]),
    device_time: z.string().datetime({ offset: true }),
    width: z.number().int().min(1).max(100_000).optional(),
    height: z.number().int().min(1).max(100_000).optional(),
    duration_ms: z.number().int().min(0).optional(),
    geolocation: z
      .strictObject({
        latitude: z.number().min(-90).max(90),
        longitude: z.number().min(-180).max(180),
        accuracy_m: z.number().min(0),
      })
      .optional(),
  }),
});

export const CompleteBody = z.strictObject({});

/** The parts of a multipart upload the phone stored, with the ETag storage answered for each. */
export const CompleteFileBody = z.strictObject({
  parts: z
    .array(z.strictObject({ part_number: z.number().int().min(1).max(10_000), etag: z.string().min(1).max(200) }))
    .max(100)
    .optional(),
});
