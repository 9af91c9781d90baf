export const CLIENT_IP_HEADER = "x-soundtrail-client-ip";
