// The vocabulary of tool search: words that carry no meaning, spellings that mean the same, and what a user's words
// imply in an API's terms. Small and general on purpose; bench/search.mjs measures what it buys on GitHub's spec.
// Maps rather than objects: "constructor" is a word too.

/** Words that say nothing about what a tool does. */
export const STOP = new Set(
  "a an the all every me my of for to in on at by with from into as and or but is are was be been being it its this that these those there here can could would should will do does did how what which whom whose when where why i am you we they them he she please want need let some any via using just also then than so very".split(
    " ",
  ),
);

/** Spellings that mean the same thing, mapped to one (applied to API text and queries alike). */
export const SAME: ReadonlyMap<string, string> = new Map(
  Object.entries({
    repo: "repository",
    repos: "repository",
    org: "organization",
    orgs: "organization",
    pr: "pull",
    prs: "pull",
    config: "configuration",
    env: "environment",
    auth: "authentication",
    info: "information",
    dir: "directory",
    msg: "message",
  }),
);

/**
 * What a user may say for what an API calls otherwise: each query word also looks for these, at a lower weight.
 * Everyday verbs, questions and developers' words ("bug", "CI", "project"), not one API's own terms, so that search
 * is not fitted to one spec.
 */
export const RELATED: ReadonlyMap<string, string[]> = new Map(
  Object.entries({
    remove: ["delete"],
    delete: ["remove"],
    erase: ["delete", "remove"],
    drop: ["delete", "remove"],
    add: ["create"],
    create: ["add"],
    new: ["create"],
    make: ["create"],
    open: ["create"],
    publish: ["create"],
    post: ["create"],
    submit: ["create"],
    share: ["create"],
    register: ["create"],
    write: ["create", "update"],
    save: ["create", "update"],
    store: ["create", "update"],
    give: ["add"],
    leave: ["create", "add"],
    grant: ["add"],
    ask: ["request"],
    show: ["get", "list"],
    view: ["get", "list"],
    see: ["get", "list"],
    display: ["get", "list"],
    fetch: ["get"],
    retrieve: ["get"],
    read: ["get"],
    look: ["get"],
    inspect: ["get"],
    browse: ["list"],
    profile: ["user"],
    project: ["repository"],
    history: ["list"],
    newest: ["latest"],
    recent: ["latest"],
    last: ["latest"],
    find: ["search", "list"],
    locate: ["search"],
    lookup: ["get", "search"],
    all: ["list"],
    every: ["list"],
    edit: ["update"],
    rename: ["update"],
    toggle: ["update"],
    modify: ["update"],
    change: ["update"],
    alter: ["update"],
    set: ["update"],
    setup: ["create"],
    close: ["update"],
    reopen: ["update"],
    approve: ["review"],
    stop: ["cancel"],
    abort: ["cancel"],
    trigger: ["dispatch", "run"],
    start: ["create", "run"],
    run: ["start"],
    rerun: ["run"],
    bug: ["issue"],
    ticket: ["issue"],
    reply: ["comment"],
    attach: ["upload"],
    invite: ["create"],
    who: ["user", "member"],
    person: ["user"],
    people: ["user"],
    someone: ["user"],
    developer: ["user"],
    account: ["user"],
    me: ["authenticated"],
    my: ["authenticated"],
    mine: ["authenticated"],
    myself: ["authenticated"],
    current: ["authenticated"],
    count: ["number"],
    visit: ["view", "traffic"],
    visitor: ["view", "traffic"],
    kick: ["remove"],
    buy: ["order", "purchase"],
    purchase: ["order", "buy"],
    destroy: ["delete"],
    purge: ["delete"],
    revoke: ["delete", "remove"],
    discard: ["delete"],
    ci: ["workflow", "check"],
  }),
);

/** Phrases a user writes as several words for what an API names with one. */
export const PHRASES: Array<[RegExp, string]> = [
  [/\bpull requests\b/g, "pulls"],
  [/\bpull request\b/g, "pull"],
  [/\bset up\b/g, "setup"],
  [/\b(?:get rid of|throw away|tear down|take down)\b/g, "remove"],
  [/\b(?:turn|switch) off\b/g, "disable"],
  [/\b(?:turn|switch) on\b/g, "enable"],
  [/\blook up\b/g, "lookup"],
  [/\b(?:logged|signed) in\b/g, "authenticated"],
  [/\b(?:how many|number of)\b/g, "count"],
];

/** What a request wants done, as far as the HTTP method tells: read, change (create or update) or delete. */
export type Intent = "read" | "change" | "delete";

/** Verbs that say which: the first of them in a request decides ("show…", "add…", "remove…"). */
export const INTENTS: ReadonlyMap<string, Intent> = new Map([
  ...words("show view see display fetch get list retrieve read look lookup find browse search download").map(
    (word) => [word, "read"] as const,
  ),
  ...words(
    "create add new make open publish post submit share register invite start setup upload attach write save store give grant leave issue send update edit rename toggle modify change alter set close reopen move replace patch enable disable mark approve accept reject cancel stop pause resume suspend restart reboot scale resize rollback merge rerun retry refund capture pay void finalize confirm verify assign unassign lock unlock pin unpin archive unarchive label annotate apply deploy install configure rotate renew extend schedule transfer block unblock mute unmute ban follow unfollow star unstar increase decrease raise lower bump",
  ).map((word) => [word, "change"] as const),
  ...words("delete remove erase drop destroy purge revoke discard kick kill terminate unregister uninstall").map(
    (word) => [word, "delete"] as const,
  ),
]);

function words(list: string): string[] {
  return list.split(" ");
}
