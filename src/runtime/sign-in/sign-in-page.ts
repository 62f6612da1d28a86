// The page the sign-in callback answers with once the provider has signed a person in: it says plainly which
// account at the provider will act, and for whom (the principal the link was made for), and stores nothing until the
// person confirms with a POST carrying the sealed confirmation (sign-in-confirmation.ts). A link forwarded to someone
// else then stores nothing unless that person, told whose assistant would act as them, agrees. No script, no style,
// nothing from another origin: the server sends it with a CSP that allows only this form's POST to itself.

export interface ConfirmationPage {
  /** The scheme's name, as the server's messages call the provider. */
  provider: string;
  /** The provider's host, so the person sees where they signed in. */
  providerHost: string;
  /** The account the provider signed in, where it says (sign-in-account.ts). */
  account?: string;
  /** Whom the link was made for: the principal the tokens would act for. */
  principal: string;
  /** Where the form posts: the callback's path. */
  action: string;
  confirmation: string;
}

/** A principal longer than this is cut on the page (a JWT's `sub` can be long). */
const MAX_SHOWN_CHARS = 200;

export function confirmationPage(page: ConfirmationPage): string {
  const provider = escapeHtml(page.provider);
  const principal = `<strong>${shown(page.principal)}</strong>`;
  const account = page.account ? `<strong>${shown(page.account)}</strong>` : undefined;
  const which = account ? `the ${provider} account ${account}` : `the ${provider} account you signed in with`;
  const title = account
    ? `Connect ${shown(page.account!)} to ${shown(page.principal)}?`
    : `Connect your ${provider} account to ${shown(page.principal)}?`;
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title></head>
<body>
<h1>${title}</h1>
<p>You signed in at ${escapeHtml(page.providerHost)} as ${which}. This sign-in link was made for ${principal}, a user of
this MCP server. If you connect, the assistant ${principal} uses will act at ${provider} as ${account ?? "you"},
with that account's permissions, until ${principal} signs out.</p>
<p><strong>Connect only if you are ${shown(page.principal)} and you started this sign-in yourself.</strong> If
someone sent you this link, choose Cancel: they would act at ${provider} as you.</p>
<form method="post" action="${escapeHtml(page.action)}">
<input type="hidden" name="confirmation" value="${escapeHtml(page.confirmation)}">
<button type="submit" name="answer" value="connect">Connect ${account ?? `my ${provider} account`} to ${principal}</button>
<button type="submit" name="answer" value="cancel">Cancel</button>
</form>
<p>Nothing is kept until you choose; this page is valid for 10 minutes.</p>
</body>
</html>
`;
}

function shown(text: string): string {
  const printable = text.replace(/[\p{Cc}\p{Cf}]/gu, "?");
  return escapeHtml(printable.length > MAX_SHOWN_CHARS ? `${printable.slice(0, MAX_SHOWN_CHARS)}…` : printable);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
