/** Patterns and limits of the specification, declared once. */
export const REFERENCE_PATTERN = /^[A-Za-z0-9_.:/#=+-]{1,200}$/;
export const LOCATION_REFERENCE_PATTERN = /^[A-Za-z0-9_.:/#=+-]{1,100}$/;
export const STAGE_PATTERN = /^[a-z0-9_.-]{1,64}$/;
export const LOCALE_PATTERN = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;
export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9_.:-]{8,255}$/;
export const HEX_COLOR_PATTERN = /^#[0-9a-fA-F]{6}$/;
export const STEP_ID_PATTERN = /^[a-z0-9_-]{1,40}$/;
