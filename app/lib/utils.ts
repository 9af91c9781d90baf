import { type ClassValue, clsx } from "clsx";

/** Joins class names, skipping falsy ones. */
export function cn(...inputs: ClassValue[]): string {
  return clsx(inputs);
}
