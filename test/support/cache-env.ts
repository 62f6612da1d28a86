// The catalog cache of the running test file (set up by cache-home.ts), for child processes started with an
// environment of their own: without it a CLI would fill the cache of the person running the tests.

export function testCacheHome(): { XDG_CACHE_HOME: string } {
  const home = process.env.XDG_CACHE_HOME;
  if (!home) throw new Error("XDG_CACHE_HOME is not set: test/support/cache-home.ts runs first (vitest setupFiles)");
  return { XDG_CACHE_HOME: home };
}
