/**
 * The commit-msg hook's check (.githooks/commit-msg): a commit's subject, the first line of its message that is
 * neither blank nor a comment, is at most 72 characters, so that `git log --oneline` reads as a list; the
 * reasoning and the figures go in the body (CONTRIBUTING.md). A `fixup!`, `squash!` or `amend!` subject is let
 * through: rebase folds it into the commit it names.
 * Usage: node scripts/commit-subject.ts <message file>; exits 1, saying why, when the subject is too long.
 */
import { readFileSync } from "node:fs";

export const MAX_SUBJECT_CHARACTERS = 72;

/** Why the message's subject is refused, or null; characters are counted as code points (é is one). */
export function subjectProblem(message: string): string | null {
  const subject = message.split("\n").find((line) => line.trim() !== "" && !line.startsWith("#")) ?? "";
  if (/^(fixup|squash|amend)! /.test(subject)) return null;
  const characters = [...subject.trimEnd()].length;
  if (characters <= MAX_SUBJECT_CHARACTERS) return null;
  return `The commit subject has ${characters} characters, over ${MAX_SUBJECT_CHARACTERS}: say what changed in the subject, why in the body after a blank line.\n  ${subject}`;
}

if (import.meta.main) {
  const problem = subjectProblem(readFileSync(process.argv[2]!, "utf8"));
  if (problem !== null) {
    console.error(problem);
    process.exitCode = 1;
  }
}
