/** Something that answers an RFC 3161 TimeStampReq (DER) with a TimeStampResp (DER). */
export interface TimestampAuthority {
  name: string;
  /** Roots (and intermediates) a verifier needs: what `chain.pem` publishes. */
  chainPem: string;
  /** Signer certificates whose tokens are eIDAS qualified. */
  qualifiedCertsPem: string;
  /** `signal`: the job was aborted; no request is sent after it fires. */
  respond(request: Uint8Array, signal?: AbortSignal): Promise<Uint8Array>;
}

/** Raised when the authority cannot be reached or answers badly: the proof is retried later. */
export class TimestampUnavailableError extends Error {}

/** A remote authority over HTTP (`application/timestamp-query`), as the public ones are. */
export function httpAuthority(url: string, name: string, chainPem: string, qualifiedCertsPem: string): TimestampAuthority {
  return {
    name,
    chainPem,
    qualifiedCertsPem,
    async respond(request, signal) {
      signal?.throwIfAborted();
      let response: Response;
      try {
        response = await fetch(url, {
          method: "POST",
          headers: { "Content-Type": "application/timestamp-query", Accept: "application/timestamp-reply" },
          body: Buffer.from(request),
          signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(15_000)]) : AbortSignal.timeout(15_000),
        });
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        throw new TimestampUnavailableError(`timestamp authority unreachable: ${(error as Error).message}`);
      }
      if (!response.ok) throw new TimestampUnavailableError(`timestamp authority answered ${response.status}`);
      return new Uint8Array(await response.arrayBuffer());
    },
  };
}
