import { describe, expect, it } from "vitest";
import { checkWebhookUrl } from "../../src/webhooks/url-rules.ts";
import { ApiError } from "../../src/errors/api-error.ts";

const refused = (url: string) => {
  try {
    checkWebhookUrl(url);
    return false;
  } catch (error) {
    return error instanceof ApiError && error.code === "invalid_webhook_url" && error.field === "/url";
  }
};

describe("webhook URL rules", () => {
  it("accepts HTTPS on a public domain name, port 443 or above 1023", () => {
    for (const url of ["https://hooks.example.com/proofs", "https://api.shop.co.uk:8443/x?y=1", "https://example.org:1024/"]) expect(refused(url)).toBe(false);
  });

  it.each([
    ["plain http", "http://hooks.example.com/"],
    ["an IPv4 address", "https://203.0.113.7/"],
    ["a decimal IPv4", "https://2130706433/"],
    ["a hex IPv4", "https://0x7f000001/"],
    ["an octal IPv4", "https://0177.0.0.1/"],
    ["an IPv6 address", "https://[::1]/"],
    ["an IPv6 public address", "https://[2001:db8::1]/"],
    ["localhost", "https://localhost/"],
    ["a .localhost name", "https://app.localhost/"],
    ["a single label", "https://intranet/"],
    ["a .local name", "https://printer.local/"],
    ["a .internal name", "https://svc.internal/"],
    ["a .lan name", "https://nas.lan/"],
    ["a .home.arpa name", "https://router.home.arpa/"],
    ["credentials", "https://user:pass@hooks.example.com/"],
    ["a fragment", "https://hooks.example.com/#x"],
    ["port 80", "https://hooks.example.com:80/"],
    ["port 1023", "https://hooks.example.com:1023/"],
    ["more than 2048 characters", `https://hooks.example.com/${"a".repeat(2048)}`],
    ["not a URL", "hooks example"],
  ])("refuses %s", (_name, url) => {
    expect(refused(url)).toBe(true);
  });

  // Issue 28: the parser repairs these into https://hooks.example.com/…, so lists and logs read another
  // URL than deliveries call.
  it.each([
    ["a leading space", " https://hooks.example.com/x"],
    ["a trailing newline", "https://hooks.example.com/x\n"],
    ["a tab inside the host", "https://hooks.exa\tmple.com/x"],
    ["no slashes after the scheme", "https:hooks.example.com/x"],
    ["three slashes", "https:///hooks.example.com/x"],
    ["a backslash before an @", "https://hooks.example.com\\@127.0.0.1/x"],
    ["backslashes for slashes", "https:\\\\hooks.example.com\\x"],
    ["an empty user", "https://@hooks.example.com/x"],
  ])("refuses a URL whose scheme or host the parser repairs: %s", (_name, url) => {
    expect(refused(url)).toBe(true);
  });

  it("answers the serialised URL, accepting what the parser only normalises", () => {
    expect(checkWebhookUrl("HTTPS://Hooks.Example.COM:443/a/../b?x=1").href).toBe("https://hooks.example.com/b?x=1");
    expect(checkWebhookUrl("https://bücher.de/x").href).toBe("https://xn--bcher-kva.de/x");
    expect(checkWebhookUrl("https://hooks.example.com/a b").href).toBe("https://hooks.example.com/a%20b");
  });
});
