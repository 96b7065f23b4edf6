import type { ApiCaller } from "../../env.ts";

/** The key in use, as `GET /v1/me` shows it. */
export function presentCaller(caller: ApiCaller) {
  return {
    organization: { id: caller.organizationId, name: caller.organizationName },
    mode: caller.mode,
    key_id: caller.keyId,
    rights: [...caller.rights],
  };
}
