// Policies: parsing `--policy` entries (with the errors a user sees), and each tool's decision.

import { describe, expect, it } from "vitest";
import { UserError } from "../../src/catalog/errors.js";
import {
  DEFAULT_POLICIES,
  type Decision,
  decide,
  isListed,
  nearMatches,
  type Policies,
  PolicyError,
  type PolicyTool,
  parsePolicies,
  resolve,
} from "../../src/runtime/approvals/policy.js";

const NAMES = ["getUser", "listUsers", "createUser", "deleteUser", "cars__search_cars", "read", "__proto__"];

function parseError(texts: string[], names: readonly string[] = NAMES): string {
  try {
    parsePolicies(texts, names);
  } catch (error) {
    expect(error).toBeInstanceOf(PolicyError);
    expect(error).toBeInstanceOf(UserError);
    expect((error as PolicyError).code).toBe("E_POLICY");
    return (error as Error).message;
  }
  throw new Error(`parsePolicies(${JSON.stringify(texts)}) did not throw`);
}

describe("parsePolicies", () => {
  const TABLE: Array<{
    name: string;
    texts: string[];
    classes?: Partial<Policies["classes"]>;
    tools?: Record<string, Decision>;
  }> = [
    { name: "nothing: the defaults", texts: [] },
    { name: "a class", texts: ["destructive=allow"], classes: { destructive: "allow" } },
    {
      name: "every class",
      texts: ["read=deny", "write=approve", "destructive=deny"],
      classes: { read: "deny", write: "approve", destructive: "deny" },
    },
    { name: "a tool", texts: ["deleteUser=deny"], tools: { deleteUser: "deny" } },
    { name: "a namespaced tool", texts: ["cars__search_cars=approve"], tools: { cars__search_cars: "approve" } },
    { name: "the last entry wins", texts: ["write=deny", "write=approve"], classes: { write: "approve" } },
    {
      name: "decisions in any case, spaces around",
      texts: [" write = APPROVE ", "getUser=Deny"],
      classes: { write: "approve" },
      tools: { getUser: "deny" },
    },
    {
      name: "several in one text, comma-separated",
      texts: ["read=approve, deleteUser=allow,write=deny"],
      classes: { read: "approve", write: "deny" },
      tools: { deleteUser: "allow" },
    },
    { name: "a bare class name targets the class", texts: ["read=deny"], classes: { read: "deny" } },
    { name: "tool: targets a tool named like a class", texts: ["tool:read=deny"], tools: { read: "deny" } },
    { name: "tool: works for any tool", texts: ["tool:getUser=approve"], tools: { getUser: "approve" } },
    { name: "a tool named __proto__ is just a name", texts: ["__proto__=deny"], tools: { ["__proto__"]: "deny" } },
  ];

  it.each(TABLE)("$name", ({ texts, classes = {}, tools = {} }) => {
    const policies = parsePolicies(texts, NAMES);
    expect(policies.classes).toEqual({ ...DEFAULT_POLICIES.classes, ...classes });
    expect({ ...policies.tools }).toEqual(tools);
    expect(Object.keys(policies.tools)).toEqual(Object.keys(tools));
    expect(policies.denyMode).toBe("hide");
  });

  it("layers over a base (settings first, then the command line) without changing it", () => {
    const settings = parsePolicies(["write=approve", "getUser=deny"], NAMES, {
      ...DEFAULT_POLICIES,
      denyMode: "refuse",
    });
    const cli = parsePolicies(["getUser=allow", "destructive=deny"], NAMES, settings);
    expect(cli.classes).toEqual({ read: "allow", write: "approve", destructive: "deny" });
    expect({ ...cli.tools }).toEqual({ getUser: "allow" });
    expect(cli.denyMode).toBe("refuse");
    expect({ ...settings.tools }).toEqual({ getUser: "deny" });
    expect(settings.classes.destructive).toBe("approve");
  });

  it("never changes the defaults", () => {
    parsePolicies(["read=deny", "getUser=deny"], NAMES);
    expect(DEFAULT_POLICIES.classes).toEqual({ read: "allow", write: "allow", destructive: "approve" });
    expect(DEFAULT_POLICIES.tools).toEqual({});
  });

  const ERRORS: Array<{ name: string; texts: string[]; names?: string[]; want: string }> = [
    {
      name: "an unknown tool, with near matches",
      texts: ["deleteUsers=deny"],
      want: "policy 'deleteUsers=deny': there is no tool named 'deleteUsers'; did you mean 'deleteUser'?",
    },
    {
      name: "several near matches, closest first",
      texts: ["listPets=deny"],
      names: ["createPet", "listPetz", "listPet"],
      want: "policy 'listPets=deny': there is no tool named 'listPets'; did you mean 'listPet', 'listPetz'?",
    },
    {
      name: "a different case",
      texts: ["DELETEUSER=deny"],
      want: "there is no tool named 'DELETEUSER'; did you mean 'deleteUser'?",
    },
    {
      name: "the namespace left off",
      texts: ["search_cars=deny"],
      want: "there is no tool named 'search_cars'; did you mean 'cars__search_cars'?",
    },
    {
      name: "nothing near",
      texts: ["frobnicate=deny"],
      want: "policy 'frobnicate=deny': there is no tool named 'frobnicate'",
    },
    {
      name: "a class in capitals",
      texts: ["Destructive=allow"],
      names: ["getUser"],
      want: "there is no tool named 'Destructive' (classes are lower case: 'destructive')",
    },
    {
      name: "tool: with a class name that is no tool",
      texts: ["tool:write=deny"],
      want: "there is no tool named 'write'",
    },
    {
      name: "a bad decision",
      texts: ["read=maybe"],
      want: "policy 'read=maybe': 'maybe' is not a decision; use allow, approve or deny",
    },
    { name: "no decision", texts: ["read="], want: "policy 'read=': '' is not a decision; use allow, approve or deny" },
    {
      name: "no '='",
      texts: ["destructive"],
      want: "policy 'destructive' has no decision: expected <target>=<allow|approve|deny>",
    },
    { name: "no target", texts: ["=deny"], want: "policy '=deny' names no target" },
    { name: "empty", texts: [""], want: "empty policy: expected <target>=<allow|approve|deny>" },
    { name: "a trailing comma", texts: ["read=allow,"], want: "empty policy" },
  ];

  it.each(ERRORS)("refuses $name", ({ texts, names, want }) => {
    expect(parseError(texts, names)).toContain(want);
  });

  it("reports every problem at once", () => {
    const message = parseError(["read=maybe", "write=allow", "getUsr=deny", "nope=deny"]);
    expect(message).toBe(
      [
        "Invalid policies:",
        "  - policy 'read=maybe': 'maybe' is not a decision; use allow, approve or deny",
        "  - policy 'getUsr=deny': there is no tool named 'getUsr'; did you mean 'getUser'?",
        "  - policy 'nope=deny': there is no tool named 'nope'",
      ].join("\n"),
    );
  });
});

describe("nearMatches", () => {
  it.each<[string, string[], string[]]>([
    ["deleteUser", ["deleteUser"], ["deleteUser"]],
    ["deleteuser", ["deleteUser", "deleteUsers"], ["deleteUser", "deleteUsers"]],
    ["search", ["cars__search", "bikes__search", "searchAll"], ["bikes__search", "cars__search"]],
    ["abc", ["xyz"], []],
    ["ab", ["abcd", "a"], ["a", "abcd"]],
    ["listPets", ["listPet", "listPets2", "listPetz", "lstPets", "createPet"], ["listPet", "listPets2", "listPetz"]],
  ])("%s among %j → %j", (name, names, want) => {
    expect(nearMatches(name, names)).toEqual(want);
  });
});

describe("decide", () => {
  const tool = (name: string, effect: PolicyTool["effect"], approval?: boolean): PolicyTool => ({
    name,
    effect,
    ...(approval === undefined ? {} : { approval }),
  });
  const policies = (...texts: string[]) => parsePolicies(texts, ["getUser", "createUser", "deleteUser", "sendMoney"]);

  const TABLE: Array<{
    name: string;
    tool: PolicyTool;
    policies: Policies;
    want: Decision;
    from: string;
    rule: string;
  }> = [
    {
      name: "default read",
      tool: tool("getUser", "read"),
      policies: policies(),
      want: "allow",
      from: "class",
      rule: "read=allow",
    },
    {
      name: "default write",
      tool: tool("createUser", "write"),
      policies: policies(),
      want: "allow",
      from: "class",
      rule: "write=allow",
    },
    {
      name: "default destructive",
      tool: tool("deleteUser", "destructive"),
      policies: policies(),
      want: "approve",
      from: "class",
      rule: "destructive=approve",
    },
    {
      name: "class policy",
      tool: tool("createUser", "write"),
      policies: policies("write=deny"),
      want: "deny",
      from: "class",
      rule: "write=deny",
    },
    {
      name: "tool beats class (looser)",
      tool: tool("deleteUser", "destructive"),
      policies: policies("deleteUser=allow"),
      want: "allow",
      from: "tool",
      rule: "deleteUser=allow",
    },
    {
      name: "tool beats class (stricter)",
      tool: tool("getUser", "read"),
      policies: policies("read=allow", "getUser=deny"),
      want: "deny",
      from: "tool",
      rule: "getUser=deny",
    },
    {
      name: "tool beats class whatever the order",
      tool: tool("getUser", "read"),
      policies: policies("getUser=approve", "read=deny"),
      want: "approve",
      from: "tool",
      rule: "getUser=approve",
    },
    {
      name: "another tool's policy does not apply",
      tool: tool("getUser", "read"),
      policies: policies("createUser=deny"),
      want: "allow",
      from: "class",
      rule: "read=allow",
    },
    {
      name: "approval: true raises allow",
      tool: tool("sendMoney", "write", true),
      policies: policies(),
      want: "approve",
      from: "definition",
      rule: "approval: true",
    },
    {
      name: "approval: true is not lifted by a tool policy",
      tool: tool("sendMoney", "write", true),
      policies: policies("sendMoney=allow"),
      want: "approve",
      from: "definition",
      rule: "approval: true",
    },
    {
      name: "approval: true keeps approve",
      tool: tool("sendMoney", "write", true),
      policies: policies("write=approve"),
      want: "approve",
      from: "class",
      rule: "write=approve",
    },
    {
      name: "deny beats approval: true",
      tool: tool("sendMoney", "write", true),
      policies: policies("sendMoney=deny"),
      want: "deny",
      from: "tool",
      rule: "sendMoney=deny",
    },
    {
      name: "approval: false changes nothing",
      tool: tool("sendMoney", "write", false),
      policies: policies(),
      want: "allow",
      from: "class",
      rule: "write=allow",
    },
    {
      name: "the defaults object itself",
      tool: tool("x", "destructive"),
      policies: DEFAULT_POLICIES,
      want: "approve",
      from: "class",
      rule: "destructive=approve",
    },
  ];

  it.each(TABLE)("$name → $want", ({ tool, policies, want, from, rule }) => {
    expect(decide(tool, policies)).toBe(want);
    expect(resolve(tool, policies)).toEqual({ decision: want, from, rule });
  });

  it("does not take a tool named like an Object.prototype member for a policy", () => {
    expect(decide(tool("constructor", "read"), DEFAULT_POLICIES)).toBe("allow");
    expect(decide(tool("toString", "destructive"), policies())).toBe("approve");
  });
});

describe("isListed", () => {
  const denied: PolicyTool = { name: "deleteUser", effect: "destructive" };
  const names = ["deleteUser"];

  it.each<[string, Policies, boolean]>([
    ["allowed", parsePolicies(["deleteUser=allow"], names), true],
    ["needs approval", parsePolicies([], names), true],
    ["denied, hidden by default", parsePolicies(["destructive=deny"], names), false],
    [
      "denied, refuse mode",
      parsePolicies(["destructive=deny"], names, { ...DEFAULT_POLICIES, denyMode: "refuse" }),
      true,
    ],
  ])("%s → %s", (_, policies, want) => {
    expect(isListed(denied, policies)).toBe(want);
  });
});
