import type { z } from "@hono/zod-openapi";
import type { Mode } from "../auth/mode.ts";

/** What every recorded event carries besides its body: whose it is, in which mode, and when it happened. */
export interface EventOrigin {
  organizationId: string;
  mode: Mode;
  createdAt: string;
}

/** One event as recorded in the outbox: `data` holds the body's fields that follow `event`, in the order they are sent. */
export interface RecordedEvent<Type extends string = string, Data = Record<string, unknown>> extends EventOrigin {
  type: Type;
  data: Data;
}

/** What declaring a webhook event takes: the one place its name, its body, its documentation and its sample live. */
export interface EventDeclaration<Type extends string, Fields extends z.ZodObject> {
  type: Type;
  /** When it is sent, in a few words (the OpenAPI webhook's summary, through `t()`). */
  summary: string;
  /** What it means for the receiver (through `t()`). */
  description: string;
  /** The body's fields after `event`, in the order they are sent; each described through `t()`. */
  fields: Fields;
  /** Sample values of every field, for `POST /v1/webhook-endpoints/{id}/test`. */
  sample(now: string): z.input<Fields>;
}

export interface EventDefinition<Type extends string = string, Fields extends z.ZodObject = z.ZodObject> extends EventDeclaration<Type, Fields> {
  /** The typed builder: the body's fields checked against the declaration and put in its order. */
  build(origin: EventOrigin, fields: z.input<Fields>): RecordedEvent<Type, z.output<Fields>>;
}

export function defineEvent<const Type extends string, Fields extends z.ZodObject>(declaration: EventDeclaration<Type, Fields>): EventDefinition<Type, Fields> {
  return {
    ...declaration,
    build: (origin, fields) => ({ ...origin, type: declaration.type, data: declaration.fields.parse(fields) }),
  };
}
