/** The exact body sent: `event` first, then the event's own fields. Serialised once and stored. */
export function deliveryBody(type: string, data: Record<string, unknown>, test = false): string {
  return JSON.stringify({ event: type, ...data, ...(test ? { test: true } : {}) });
}
