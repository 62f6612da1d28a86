// The HTTP routes of the sign-in mode: the callback the provider redirects the user's browser to (public, as it
// must be: the browser has no MCP token), the confirmation posted from the page it answers, and sign-out for a
// verified caller. The callback trusts nothing but the sealed state (oauth-state.ts): forged, expired or used
// before, it finishes nothing; the code is redeemed with that state's PKCE verifier, so a code obtained in another
// sign-in (another principal's) is refused by the provider. Then nothing is stored yet: the page names the account
// the provider signed in and the principal the link was made for (sign-in-page.ts), and only a POST from that page,
// carrying its one-time sealed confirmation (sign-in-confirmation.ts), stores the tokens for that principal. A link
// forwarded to a victim so stores nothing unless the victim, told whose assistant would act as them, agrees.

import { messageOf } from "../../catalog/errors.js";
import type { HttpRoute, RouteAnswer, RouteRequest } from "../http-route.js";
import type { SignIn } from "./sign-in.js";
import type { ConfirmationRefusal, SignInConfirmations } from "./sign-in-confirmation.js";
import { SIGN_IN_LIFETIME_MS } from "./sign-in-link.js";
import { confirmationPage } from "./sign-in-page.js";
import type { SignInRefusal, SignInStates } from "./oauth-state.js";
import { GrantError } from "./token-grant.js";

const AGAIN = "Call the tool again for a new sign-in link.";
const REFUSALS: Record<SignInRefusal | ConfirmationRefusal, string> = {
  forged: `This sign-in link is not one this server made (its state is forged or damaged); nothing was stored. ${AGAIN}`,
  expired: `This sign-in link has expired; nothing was stored. ${AGAIN}`,
  replayed: `This sign-in link was used already; nothing more was stored. ${AGAIN}`,
  unavailable: "This server cannot finish sign-ins right now; try again in a minute.",
  unreachable:
    "This server cannot finish sign-ins right now: its shared state (Redis) is unreachable; nothing was stored. Open this page again in a minute.",
};
export const SIGN_OUT_PATH = "/signout";

interface Parts {
  signIns: readonly SignIn[];
  states: SignInStates;
  confirmations: SignInConfirmations;
}

export function signInRoutes(parts: Parts): HttpRoute[] {
  const paths = [...new Set(parts.signIns.map((s) => new URL(s.config.redirectUrl).pathname))];
  const callbacks = paths.flatMap((path): HttpRoute[] => [
    { path, method: "GET", access: "public", handle: (request) => callback({ ...parts, path, request }) },
    { path, method: "POST", access: "public", form: true, handle: (request) => confirm({ ...parts, path, request }) },
  ]);
  const signOut: HttpRoute = {
    path: SIGN_OUT_PATH,
    method: "POST",
    access: "caller",
    handle: async ({ caller }) => {
      if (!caller)
        return { status: 400, text: "Signing out needs endpoint auth: this server does not know who you are." };
      const dropped: string[] = [];
      for (const signIn of parts.signIns) if (await signIn.signOut(caller.principal)) dropped.push(signIn.config.name);
      return {
        status: 200,
        text: dropped.length > 0 ? `Signed out of ${dropped.join(", ")}.` : "You were not signed in anywhere here.",
      };
    },
  };
  return [...callbacks, signOut];
}

/** GET: the provider's redirect. The code is redeemed, and the page asks the person to confirm; nothing is stored. */
async function callback({ signIns, states, confirmations, path, request }: Parts & Route): Promise<RouteAnswer> {
  const { query } = request;
  const state = query.get("state");
  if (!state) return { status: 400, text: `This page finishes a sign-in, and it was opened without one. ${AGAIN}` };
  const claims = await states.open(state);
  if ("refused" in claims) return { status: 400, text: REFUSALS[claims.refused] };
  const signIn = signInAt({ signIns, path, scheme: claims.scheme });
  if (!signIn) return { status: 400, text: REFUSALS.forged };
  const { name } = signIn.config;
  const error = query.get("error");
  const code = query.get("code");
  if (error || !code)
    return {
      status: 400,
      text: `${name} did not sign you in (${error ? clip(error) : "no code"}); nothing was stored. ${AGAIN}`,
    };
  let redeemed: Awaited<ReturnType<SignIn["redeem"]>>;
  try {
    redeemed = await signIn.redeem({ code, verifier: claims.verifier });
  } catch (failure) {
    if (failure instanceof GrantError)
      return { status: 400, text: `${name} refused this sign-in: ${failure.message}; nothing was stored. ${AGAIN}` };
    return { status: 500, text: `The sign-in could not be finished: ${messageOf(failure)}` };
  }
  const confirmation = confirmations.seal({
    principal: claims.principal,
    scheme: claims.scheme,
    tokens: redeemed.tokens,
    nonce: claims.nonce,
    expiresAt: Date.now() + SIGN_IN_LIFETIME_MS,
  });
  const html = confirmationPage({
    provider: name,
    providerHost: new URL(signIn.config.authorizationUrl).host,
    ...(redeemed.account ? { account: redeemed.account } : {}),
    principal: claims.principal,
    action: path,
    confirmation,
  });
  return { status: 200, html };
}

/** POST from the page: connect (the tokens are stored for the link's principal) or cancel (nothing is). */
async function confirm({ signIns, confirmations, path, request }: Parts & Route): Promise<RouteAnswer> {
  const { form, origin, fetchSite } = request;
  const site = signIns.find((s) => new URL(s.config.redirectUrl).pathname === path);
  // Only the page itself may post here: a browser says where a post comes from, and this one must be our origin.
  const ours = new URL(site!.config.redirectUrl).origin;
  if ((fetchSite && fetchSite !== "same-origin") || (origin && origin !== "null" && origin !== ours))
    return { status: 403, text: "This confirmation was posted from another site; nothing was stored." };
  const sealed = form?.get("confirmation");
  const answer = form?.get("answer");
  if (!sealed || (answer !== "connect" && answer !== "cancel"))
    return { status: 400, text: `This page confirms a sign-in, and it was posted without one. ${AGAIN}` };
  const pending = await confirmations.open(sealed);
  if ("refused" in pending) return { status: 400, text: REFUSALS[pending.refused] };
  const signIn = signInAt({ signIns, path, scheme: pending.scheme });
  if (!signIn) return { status: 400, text: REFUSALS.forged };
  const { name } = signIn.config;
  if (answer === "cancel") {
    await signIn.discard(pending.tokens);
    return {
      status: 200,
      text: `Cancelled: nothing was stored, and your ${name} account does not act for ${pending.principal}. You can close this page.`,
    };
  }
  try {
    await signIn.keep({ principal: pending.principal, tokens: pending.tokens });
  } catch (failure) {
    return { status: 500, text: `The sign-in could not be kept: ${messageOf(failure)}` };
  }
  return {
    status: 200,
    text: `Signed in to ${name} for ${pending.principal}. You can close this page and go back to your assistant.`,
  };
}

interface Route {
  path: string;
  request: RouteRequest;
}

function signInAt({ signIns, path, scheme }: { signIns: readonly SignIn[]; path: string; scheme: string }) {
  return signIns.find((s) => s.config.scheme === scheme && new URL(s.config.redirectUrl).pathname === path);
}

/** A provider's error code, as shown: short, printable. */
function clip(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, "?").slice(0, 100);
}
