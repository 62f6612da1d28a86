// Keys from documents ("__proto__", "constructor") must become own data properties, never prototype writes.

export function defineOwn<T>(target: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** `target[key] = value`, safe for any key; plain assignment for the keys that are safe (nearly all). */
export function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  if (key === "__proto__") defineOwn(target, key, value);
  else target[key] = value;
}
