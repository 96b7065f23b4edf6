import type { SessionRow } from "../storage/capture-sessions.ts";
import type { TemplateSnapshot } from "../capture-templates/snapshot.ts";
import { resolveText } from "../i18n/resolve-locale.ts";
import { resolveSessionTheme } from "./session-theme.ts";
import { findOrganization } from "../storage/organizations.ts";
import { liveFilesOfSession } from "../storage/files.ts";
import { proofThumbnails, shotsPerStep } from "../storage/proofs-read.ts";
import type { DomainContext } from "../domain/context.ts";
import { beforeFilesOrConflict } from "../capture-sessions/comparison.ts";

const DEFAULT_COLOR = "#1f4fd8";

/** What the capture page needs, with the template's texts resolved to the session's language. */
export async function captureSessionView({ ctx, input }: { ctx: Pick<DomainContext, "db" | "env" | "now">; input: { session: SessionRow; token: string } }) {
  const { db, now } = ctx;
  const { session, token } = input;
  const captureBaseUrl = ctx.env.CAPTURE_BASE_URL;
  const template = session.templateSnapshot;
  const text = (value: TemplateSnapshot["welcome"]["title"] | null) => (value === null ? null : resolveText(value, session.locale, template.default_locale));
  const theme = await resolveSessionTheme(ctx.env, session);
  const files = await liveFilesOfSession(db, session.id);
  const organization = await findOrganization(db, session.organizationId);
  const captureUrl = `${captureBaseUrl.replace(/\/$/, "")}/c/${token}`;
  const befores = session.compareTo ? await beforeFilesOrConflict(proofThumbnails(db, ctx.env, session.compareTo)) : null;
  return {
    session_id: session.id,
    locale: session.locale,
    // The page translates its own buttons in the specification's order: exact tag, base, this, English.
    default_locale: template.default_locale,
    organization_name: organization?.name ?? null,
    return_url: session.returnUrl,
    mode: session.mode,
    status: "open" as const,
    expires_at: session.expiresAt,
    server_time: now.toISOString(),
    welcome: { title: text(template.welcome.title) ?? "", body: text(template.welcome.body) },
    completion: { title: text(template.completion.title) ?? "", body: text(template.completion.body) },
    steps: template.steps.map((step) => ({
      id: step.id,
      label: text(step.label) ?? step.id,
      instruction: text(step.instruction) ?? "",
      required: step.required,
      kind: step.kind,
      min_count: step.min_count,
      max_count: step.max_count,
    })),
    ask_location: template.ask_location,
    theme: {
      primary_color: theme?.primaryColor ?? DEFAULT_COLOR,
      logo_url: theme?.logoKey ? `${captureUrl}/logo` : null,
    },
    before_shots: session.compareTo ? await beforeFilesOrConflict(shotsPerStep(db, ctx.env, session.compareTo)) : null,
    before_thumbnails: befores?.map((file) => ({ step_id: file.stepId, url: `${captureUrl}/before/${file.id}` })) ?? null,
    files: files.map((file) => ({
      file_id: file.id,
      step_id: file.stepId,
      size: file.size,
      sha256: file.sha256,
      content_type: file.contentType,
      status: file.status as "declared" | "uploaded",
    })),
  };
}
