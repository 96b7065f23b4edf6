import { describe, expect, it } from "vitest";
import { execFileSync, execSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAX_SUBJECT_CHARACTERS, subjectProblem } from "../../scripts/commit-subject.ts";

// Runs in Node without the dev stack.
describe("the commit-msg hook: subjects of at most 72 characters", () => {
  const subject = (length: number) => "s".repeat(length);

  it("takes 72 characters and refuses 73, counting the first line that is neither blank nor a comment", () => {
    expect(MAX_SUBJECT_CHARACTERS).toBe(72);
    expect(subjectProblem(`${subject(72)}\n\n${"b".repeat(300)}\n`)).toBeNull();
    expect(subjectProblem(`${subject(73)}\n`)).toContain("73 characters, over 72");
    expect(subjectProblem(`\n# Please enter the commit message\n${subject(73)}\n`)).toContain("73 characters");
    expect(subjectProblem(`# ${subject(100)}\n${subject(10)}\n`)).toBeNull();
    expect(subjectProblem(`${"é".repeat(72)}\n`)).toBeNull();
    expect(subjectProblem(`fixup! ${subject(72)}\n`)).toBeNull();
  });

  it("is the hook git runs: exit 1 with the reason on a long subject, 0 on a short one", () => {
    const dir = mkdtempSync(join(tmpdir(), "commit-msg-"));
    const run = (message: string) => {
      writeFileSync(join(dir, "COMMIT_EDITMSG"), message);
      return spawnSync(".githooks/commit-msg", [join(dir, "COMMIT_EDITMSG")], { encoding: "utf8" });
    };
    const refused = run(`${subject(80)}\n`);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain("80 characters, over 72");
    expect(run(`${subject(72)}\n`).status).toBe(0);
  });

  it("is installed by npm's prepare script in a clone, which never fails where there is no git repository", () => {
    const prepare: string = JSON.parse(readFileSync("package.json", "utf8")).scripts.prepare;
    const clone = mkdtempSync(join(tmpdir(), "clone-"));
    execFileSync("git", ["init", "-q"], { cwd: clone });
    execSync(prepare, { cwd: clone, stdio: "ignore" });
    expect(execFileSync("git", ["config", "core.hooksPath"], { cwd: clone, encoding: "utf8" }).trim()).toBe(".githooks");
    const notARepository = mkdtempSync(join(tmpdir(), "no-git-"));
    expect(() => execSync(prepare, { cwd: notARepository, stdio: "ignore", env: { ...process.env, GIT_CEILING_DIRECTORIES: tmpdir() } })).not.toThrow();
  });
});
