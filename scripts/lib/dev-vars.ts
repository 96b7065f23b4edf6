import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";

/** Creates .dev.vars from the example when missing, with fresh random values for every `generate`. */
export function ensureDevVars(examplePath: string, targetPath: string): Record<string, string> {
  if (!existsSync(targetPath)) {
    const filled = readFileSync(examplePath, "utf8").replace(/^([A-Z0-9_]+)=generate$/gm, (_line, name: string) => {
      const bytes = randomBytes(32);
      return `${name}=${name === "WEBHOOK_SECRET_KEY" ? bytes.toString("base64") : bytes.toString("base64url")}`;
    });
    writeFileSync(targetPath, filled, { mode: 0o600 });
    console.log(`Created ${targetPath} with fresh secrets.`);
  }
  return parseDevVars(readFileSync(targetPath, "utf8"));
}

export function parseDevVars(text: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const match = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (match) vars[match[1]!] = match[2]!.replace(/^"(.*)"$/, "$1");
  }
  return vars;
}
