// The graph of `$ref`s between a document's schemas, used to tell which shared definitions differ between input
// and output (`readOnly` properties leave inputs, `writeOnly` ones leave outputs). A definition differs when it or
// anything it reaches has such a property; cycles are common, so reachability goes through Tarjan's SCCs.

import { isObject, localRefPointer, resolvePointer } from "../pointer.js";
import { forEachSubschema } from "./keywords.js";

interface RefNode {
  refs: string[];
  directional: boolean;
  varies?: boolean;
  index?: number;
  lowlink?: number;
  onStack?: boolean;
}

type Resolve = (pointer: string) => unknown;

/** Follows a chain of `$ref`s from `schema` to the schema it finally names; undefined if it leads nowhere. */
export function followRefs(resolve: Resolve, schema: unknown): unknown {
  let current = schema;
  for (let hops = 0; hops < 32; hops++) {
    if (!isObject(current) || typeof current.$ref !== "string") return current;
    const pointer = localRefPointer(current.$ref);
    if (pointer === undefined) return undefined;
    current = resolve(pointer);
  }
  return undefined;
}

export const READ_ONLY = 1;
export const WRITE_ONLY = 2;

/** READ_ONLY / WRITE_ONLY bits of a property schema (or of the schema its `$ref` names). */
export function propertyAccess(resolve: Resolve, property: unknown): number {
  if (!isObject(property)) return 0;
  let access = (property.readOnly === true ? READ_ONLY : 0) | (property.writeOnly === true ? WRITE_ONLY : 0);
  if (typeof property.$ref === "string") {
    const target = followRefs(resolve, property);
    if (isObject(target))
      access |= (target.readOnly === true ? READ_ONLY : 0) | (target.writeOnly === true ? WRITE_ONLY : 0);
  }
  return access;
}

export class RefGraph {
  private readonly nodes = new Map<string, RefNode>();
  private readonly resolved = new Map<string, unknown>();
  private nextIndex = 0;
  private readonly stack: string[] = [];

  /** `resolve`, bound, for helpers that take a resolver. */
  readonly resolver: Resolve = (pointer) => this.resolve(pointer);

  constructor(private readonly root: unknown) {}

  /** The value at a pointer in the document, cached: the same few hundred schemas are looked up many times. */
  resolve(pointer: string): unknown {
    if (this.resolved.has(pointer)) return this.resolved.get(pointer);
    const value = resolvePointer(this.root, pointer);
    this.resolved.set(pointer, value);
    return value;
  }

  /** Whether the definition at `pointer` converts differently for input and output. */
  varies(pointer: string): boolean {
    const node = this.node(pointer);
    if (node.varies === undefined) this.connect(pointer);
    return node.varies === true;
  }

  private node(pointer: string): RefNode {
    let node = this.nodes.get(pointer);
    if (!node) {
      node = this.scan(this.resolve(pointer));
      this.nodes.set(pointer, node);
    }
    return node;
  }

  /** The refs a raw schema makes (without following them) and whether it has readOnly/writeOnly properties. */
  private scan(schema: unknown): RefNode {
    const refs = new Set<string>();
    let directional = false;
    const walk = (value: unknown): void => {
      if (!isObject(value)) return;
      if (typeof value.$ref === "string") {
        const pointer = localRefPointer(value.$ref);
        if (pointer !== undefined) refs.add(pointer);
      }
      if (!directional && isObject(value.properties)) {
        for (const name in value.properties) {
          if (propertyAccess(this.resolver, value.properties[name]) !== 0) directional = true;
        }
      }
      forEachSubschema(value, walk);
    };
    walk(schema);
    return { refs: [...refs], directional };
  }

  // Tarjan's strongly connected components, iterative: graphs like Microsoft Graph's chain thousands of schemas,
  // deeper than the call stack allows.
  private connect(start: string): void {
    const work: Array<{ pointer: string; node: RefNode; next: number; varies: boolean }> = [];
    const enter = (pointer: string): void => {
      const node = this.node(pointer);
      node.index = this.nextIndex;
      node.lowlink = this.nextIndex;
      this.nextIndex++;
      node.onStack = true;
      this.stack.push(pointer);
      work.push({ pointer, node, next: 0, varies: node.directional });
    };
    enter(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const { node } = frame;
      if (frame.next < node.refs.length) {
        const ref = node.refs[frame.next++]!;
        const target = this.node(ref);
        if (target.index === undefined) {
          enter(ref);
        } else if (target.onStack) {
          node.lowlink = Math.min(node.lowlink!, target.index);
          if (target.directional) frame.varies = true;
        } else if (target.varies) {
          frame.varies = true;
        }
        continue;
      }
      work.pop();
      if (node.lowlink === node.index) {
        // `frame.pointer` roots a component: it varies if any member saw a directional schema.
        const members: RefNode[] = [];
        let varies = frame.varies;
        for (;;) {
          const member = this.node(this.stack.pop()!);
          member.onStack = false;
          members.push(member);
          if (member.varies || member.directional) varies = true;
          if (member === node) break;
        }
        for (const member of members) member.varies = varies;
      } else if (frame.varies) {
        node.varies = true;
      }
      const parent = work[work.length - 1];
      if (parent) {
        parent.node.lowlink = Math.min(parent.node.lowlink!, node.lowlink!);
        if (node.varies) parent.varies = true;
      }
    }
  }
}
