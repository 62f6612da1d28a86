// The HTTP routes of the sign-in mode: the callback the provider redirects the user's browser to (public, as it
// must be: the browser has no MCP token), and sign-out for a verified caller. The callback trusts nothing but the
// sealed state (sign-in-state.ts): forged, expired or used before, it finishes nothing; the tokens go to the
// principal the state was issued to, and the code is redeemed with that state's PKCE verifier, so a code obtained
// in another sign-in (another principal's) is refused by the provider. Answers are short plain text, no token.

import { messageOf } from "../catalog/errors.js";
import type { HttpRoute } from "./http-route.js";
import type { SignIn } from "./sign-in.js";
import type { SignInRefusal, SignInStates } from "./sign-in-state.js";
import { GrantError } from "./token-grant.js";

const AGAIN = "Call the tool again for a new sign-in link.";
const REFUSALS: Record<SignInRefusal, string> = {
  forged: `This sign-in link is not one this server made (its state is forged or damaged); nothing was stored. ${AGAIN}`,
  expired: `This sign-in link has expired; nothing was stored. ${AGAIN}`,
  replayed: `This sign-in link was used already; nothing more was stored. ${AGAIN}`,
  unavailable: "This server cannot finish sign-ins right now; try again in a minute.",
  unreachable:
    "This server cannot finish sign-ins right now: its shared state (Redis) is unreachable; nothing was stored. Open this page again in a minute.",
};
export const SIGN_OUT_PATH = "/signout";

export function signInRoutes({ signIns, states }: { signIns: readonly SignIn[]; states: SignInStates }): HttpRoute[] {
  const paths = [...new Set(signIns.map((s) => new URL(s.config.redirectUrl).pathname))];
  const callbacks = paths.map(
    (path): HttpRoute => ({
      path,
      method: "GET",
      access: "public",
      handle: async ({ query }) => {
        const state = query.get("state");
        if (!state)
          return { status: 400, text: `This page finishes a sign-in, and it was opened without one. ${AGAIN}` };
        const claims = await states.open(state);
        if ("refused" in claims) return { status: 400, text: REFUSALS[claims.refused] };
        const signIn = signIns.find(
          (s) => s.config.scheme === claims.scheme && new URL(s.config.redirectUrl).pathname === path,
        );
        if (!signIn) return { status: 400, text: REFUSALS.forged };
        const { name } = signIn.config;
        const error = query.get("error");
        const code = query.get("code");
        if (error || !code)
          return {
            status: 400,
            text: `${name} did not sign you in (${error ? clip(error) : "no code"}); nothing was stored. ${AGAIN}`,
          };
        try {
          await signIn.finish({ principal: claims.principal, code, verifier: claims.verifier });
        } catch (failure) {
          if (failure instanceof GrantError)
            return {
              status: 400,
              text: `${name} refused this sign-in: ${failure.message}; nothing was stored. ${AGAIN}`,
            };
          return { status: 500, text: `The sign-in could not be kept: ${messageOf(failure)}` };
        }
        return { status: 200, text: `Signed in to ${name}. You can close this page and go back to your assistant.` };
      },
    }),
  );
  const signOut: HttpRoute = {
    path: SIGN_OUT_PATH,
    method: "POST",
    access: "caller",
    handle: async ({ caller }) => {
      if (!caller)
        return { status: 400, text: "Signing out needs endpoint auth: this server does not know who you are." };
      const dropped: string[] = [];
      for (const signIn of signIns) if (await signIn.signOut(caller.principal)) dropped.push(signIn.config.name);
      return {
        status: 200,
        text: dropped.length > 0 ? `Signed out of ${dropped.join(", ")}.` : "You were not signed in anywhere here.",
      };
    },
  };
  return [...callbacks, signOut];
}

/** A provider's error code, as shown: short, printable. */
function clip(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, "?").slice(0, 100);
}
