// @ts-check
/** Adds the reader's own time and zone beside each certified time the server wrote in UTC. */
const lang = document.documentElement.lang || undefined;
for (const time of document.querySelectorAll("time[data-local]")) {
  const date = new Date(time.getAttribute("datetime") ?? "");
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (Number.isNaN(date.getTime()) || zone === "UTC" || zone === "Etc/UTC") continue;
  const local = new Intl.DateTimeFormat(lang, { dateStyle: "long", timeStyle: "medium" }).format(date);
  const named = new Intl.DateTimeFormat(lang, { timeZoneName: "long" }).formatToParts(date).find((part) => part.type === "timeZoneName")?.value ?? zone;
  const span = document.createElement("span");
  span.className = "local-time";
  span.dataset.testid = "local-time";
  span.textContent = `${local} (${named})`;
  time.before(span, " · ");
}
