/** Largest image upload accepted (bytes): the server's check and the composer's hint. */
export const IMAGE_MAX_BYTES = 10 * 1024 * 1024;
