import { test } from "node:test";
import assert from "node:assert/strict";
import { REPORT_LANGUAGES } from "../../shared/report-protocol.ts";
import { REPORT_MESSAGES } from "../src/report/report-messages.ts";

test("every language of the report has the same keys as English, none empty, with the same placeholders", () => {
  const english = REPORT_MESSAGES.en;
  for (const language of REPORT_LANGUAGES) {
    const table = REPORT_MESSAGES[language];
    assert.deepEqual(Object.keys(table).sort(), Object.keys(english).sort(), language);
    for (const [key, value] of Object.entries(table)) {
      assert.ok(value.trim().length > 0, `${language}.${key}`);
      const placeholders = (text: string) => (text.match(/\{[a-z]+\}/g) ?? []).sort();
      assert.deepEqual(placeholders(value), placeholders(english[key as keyof typeof english]), `${language}.${key}`);
    }
  }
});
