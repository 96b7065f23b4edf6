/** The organization's settings as the API shows them. */
export function presentSettings(allowedReturnOrigins: string[]) {
  return { allowed_return_origins: allowedReturnOrigins };
}
