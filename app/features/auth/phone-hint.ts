// Apart from schemas.ts so that the form field showing it does not pull zod into the page.

/** How a phone number should be written, shown under every phone field. */
export const PHONE_HINT = "In international form, e.g. +49 151 23456789.";
