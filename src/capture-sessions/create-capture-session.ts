import type { ApiCaller } from "../env.ts";
import type { DomainContext } from "../domain/context.ts";
import { ApiError } from "../errors/api-error.ts";
import { sha256Hex } from "../lib/crypto.ts";
import { newShardedId, shardDatabase } from "../db/shards.ts";
import { apiAccountName } from "../durable/api-account.ts";
import { namedStub } from "../durable/named-stub.ts";
import { organizationShardsNow } from "../billing/available-balance.ts";
import { newCaptureToken } from "./capture-token.ts";
import { canonicalJson } from "../../shared/canonical-json.ts";
import { boundedCache } from "../../shared/bounded-cache.ts";
import { isLoopbackHost } from "../lib/host-names.ts";
import { isReturnUrlAllowed } from "../settings/return-origins.ts";
import { resolveTemplateForSession } from "../capture-templates/resolve.ts";
import { recordTemplateUse } from "../capture-templates/record-use.ts";
import { getAllowedReturnOrigins } from "../storage/settings.ts";
import { findDefaultTheme } from "../storage/capture-themes.ts";
import { insertSessionWithinBalance, refusedCreation, type SessionToInsert } from "../storage/capture-sessions.ts";
import { beforeTemplateForAfter } from "./comparison.ts";
import { type IdempotentRequest, liveCreationIn, liveCreationInShardsNow, type OpenedCreation, openedCreation, sessionCreation } from "./creation-record.ts";
import type { TemplateSnapshot } from "../capture-templates/snapshot.ts";

export const CAPTURE_LINK_LIFETIME_MS = 30 * 60 * 1000;

export interface CreateCaptureSessionInput {
  external_reference: string;
  party: "provider" | "recipient";
  stage?: string;
  category?: string;
  template_id?: string;
  compare_to?: string;
  locale?: string;
  return_url?: string;
  location_reference?: string;
}

type SessionContext = Pick<DomainContext, "db" | "env" | "caller" | "now">;

async function checkReturnUrl(db: DomainContext["db"], caller: ApiCaller, returnUrl: string): Promise<void> {
  const field = "/return_url";
  const url = new URL(returnUrl);
  const localTest = url.protocol === "http:" && isLoopbackHost(url.hostname) && caller.mode === "test";
  if (url.protocol !== "https:" && !localTest) {
    throw new ApiError("validation_failed", { field, detail: "return_url must use https (http://localhost only with a test key)." });
  }
  if (!isReturnUrlAllowed(url, await getAllowedReturnOrigins(db, caller.organizationId, caller.mode))) {
    throw new ApiError("return_url_not_allowed", { field });
  }
}

/**
 * The snapshot as stored (canonical JSON) and its SHA-256, kept for the snapshot object itself: the
 * built-in template, which most sessions copy, is the same object every time.
 */
const storedForms = boundedCache<TemplateSnapshot, Promise<{ json: string; sha256: string }>>({ maxEntries: 64 });

function storedForm(snapshot: TemplateSnapshot): Promise<{ json: string; sha256: string }> {
  return storedForms.getOrSet(snapshot, async () => {
    const json = canonicalJson(snapshot);
    return { json, sha256: await sha256Hex(json) };
  });
}

/** The answer given again to a retry whose key already created a session; another body with that key is refused. */
function answeredAgain(earlier: OpenedCreation, request: IdempotentRequest) {
  if (earlier.requestHash !== request.requestHash) throw new ApiError("idempotency_key_reused", { field: "/header/Idempotency-Key" });
  return { session: earlier.session, token: earlier.token, replayed: true };
}

/**
 * Creates a capture session and its single-use link; a live one reserves one unit of balance. Answers the
 * session with its token, which is known only now (only its hash is stored). The attempt is recorded with
 * the session (ADR 0046): when its Idempotency-Key already created a session (a retry after a Worker died
 * before the key's record got its answer), that session is answered again (`replayed`), or, for another
 * body, `idempotency_key_reused`; never a second session.
 *
 * Where (docs/adr/0070): in the organization's write shard, or, for an "after", in its before's shard. An
 * organization with write shards looks its key up in each of its shards first (alongside the template: no
 * round trip more), since a retry after a switch would find its key free in the new shard, and has its live
 * creations decided by its account's Durable Object, which counts the balance of every shard and looks the key
 * up in the shards its home lists now that the caller's cached list lacks; a test creation reads that list
 * itself, with its look-up. One shard alone: the one statement as before, which refuses once the organization
 * has a write shard, test or live; a cached caller that has not seen the switch then starts again with the
 * shards its home lists now, as it does for an "after" of a before in a shard it does not know yet.
 */
export async function createCaptureSession({ ctx, input, request }: { ctx: SessionContext; input: CreateCaptureSessionInput; request: IdempotentRequest }) {
  const { db, env, caller, now } = ctx;
  if (input.template_id !== undefined && input.compare_to !== undefined) {
    throw new ApiError("validation_failed", { field: "/template_id", detail: "template_id must not be given with compare_to." });
  }
  if (input.return_url !== undefined) await checkReturnUrl(db, caller, input.return_url);
  const placed =
    input.compare_to !== undefined
      ? beforeTemplateForAfter({ db, env, caller }, { ...input, compare_to: input.compare_to })
      : resolveTemplateForSession(db, {
          organizationId: caller.organizationId,
          mode: caller.mode,
          templateId: input.template_id,
          stage: input.stage,
          category: input.category,
        }).then((snapshot) => ({ snapshot, shard: caller.writeShard }));
  const manyShards = caller.shards.length > 1;
  const [{ snapshot, shard }, earlierInShards, homeLocale] = await Promise.all([
    placed,
    // Live: the account's object reads the list fresh and looks the key up in the shards it adds.
    !manyShards
      ? null
      : caller.mode === "live"
        ? liveCreationIn(env, caller, caller.shards, request.key, now)
        : liveCreationInShardsNow(env, caller, request.key, now),
    // Themes stay home (docs/adr/0070): a session written in another shard cannot read the default theme's
    // locale in its insert, as one written home does.
    manyShards && input.locale === undefined ? findDefaultTheme(db, caller.organizationId).then((theme) => theme?.locale ?? null) : null,
    // Before the insert: home's templates cannot see a session written in another shard (migration 0030).
    placed.then((where) => recordTemplateUse(db, caller.organizationId, where, now)),
  ]);
  if (earlierInShards !== null) return answeredAgain(earlierInShards, request);
  // A before in a shard this cached caller does not list yet (found by the list read again: forger session 9, W5b).
  if (!caller.shards.includes(shard)) return createCaptureSession({ ctx: { ...ctx, caller: await withShardsNow(ctx) }, input, request });
  // The session, its link and its proof live in that shard, and their id and token say so (docs/adr/0062).
  const token = newCaptureToken(shard);
  const { json: snapshotJson, sha256: snapshotSha256 } = await storedForm(snapshot);
  const createdAt = now.toISOString();
  const expiresAt = new Date(now.getTime() + CAPTURE_LINK_LIFETIME_MS).toISOString();
  const id = newShardedId("cps", shard);
  const session: SessionToInsert = {
    id,
    organizationId: caller.organizationId,
    mode: caller.mode,
    status: "open",
    tokenHash: await sha256Hex(token),
    externalReference: input.external_reference,
    party: input.party,
    stage: input.stage ?? null,
    category: input.category ?? null,
    templateId: snapshot.id,
    templateSnapshotJson: snapshotJson,
    templateSha256: snapshotSha256,
    locale: input.locale ?? homeLocale ?? null,
    locationReference: input.location_reference ?? null,
    returnUrl: input.return_url ?? null,
    compareTo: input.compare_to ?? null,
    holdsReservation: caller.mode === "live" ? 1 : 0,
    createdAt,
    updatedAt: createdAt,
    expiresAt,
  };
  const creation = await sessionCreation(caller, request, token, now);
  const target = shardDatabase(env, shard).$client;
  const decidedByAccount = session.holdsReservation !== 0 && manyShards;
  const inserted = decidedByAccount
    ? await namedStub(env.API_ACCOUNT, apiAccountName(caller)).insertLiveSession(session, creation, caller.shards)
    : await insertSessionWithinBalance(target, session, creation, manyShards ? { keyLookedUpInShardsNow: true } : { homeOnly: true });
  if (inserted !== null && "earlier" in inserted) return answeredAgain(await openedCreation(caller, request.key, inserted.earlier), request);
  if (inserted !== null) return { session: { ...session, locale: inserted.locale }, token, replayed: false };
  const refused = await refusedCreation(target, creation.keyHash, creation.liveAfter, caller.organizationId);
  if (refused.earlier !== null) return answeredAgain(await openedCreation(caller, request.key, refused.earlier), request);
  if (!manyShards && refused.hasWriteShards) {
    // Once: with more than one shard the next attempt looks its key up in all of them (a list naming home alone would loop).
    const current = await withShardsNow(ctx);
    if (current.shards.length > 1) return createCaptureSession({ ctx: { ...ctx, caller: current }, input, request });
  }
  throw new ApiError("insufficient_balance");
}

/** The caller with its organization's shards as its home lists them now, its cached list being older (docs/adr/0070). */
async function withShardsNow({ env, caller }: SessionContext): Promise<ApiCaller> {
  return { ...caller, ...(await organizationShardsNow(env, caller.organizationId)) };
}
