// The engine's call as a pipeline of named stages, in the manner of undici's Dispatcher.compose: each stage gets
// the call as the stages before it left it, and either ends it (a refusal, a question for later) or hands it on to
// `next` with what it added. stages.ts puts them in order; callTool, beginCall and resumeCall run the one chain.
// A stage adds to the call's object (Object.assign, typed as the call with the additions) rather than copying it:
// a copy at each stage made a call take 30 µs more CPU, most of it garbage collection.

/** One stage: ends the call with a result of its own, or goes on with `next`. */
export type Stage<In, Out, Result> = (call: In, next: (call: Out) => Promise<Result>) => Promise<Result>;

/** Stages joined in the order given, each typed by what the one before it hands on. */
export class Chain<Start, Current, Result> {
  private constructor(
    private readonly run: (call: Start, last: (call: Current) => Promise<Result>) => Promise<Result>,
  ) {}

  static of<Start, Result>(): Chain<Start, Start, Result> {
    return new Chain<Start, Start, Result>((call, last) => last(call));
  }

  add<Next>(stage: Stage<Current, Next, Result>): Chain<Start, Next, Result> {
    return new Chain<Start, Next, Result>((call, last) => this.run(call, (current) => stage(current, last)));
  }

  /** The whole chain, `last` answering what every stage let through. */
  end(last: (call: Current) => Promise<Result>): (call: Start) => Promise<Result> {
    return (call) => this.run(call, last);
  }
}
