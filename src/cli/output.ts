// Where a command writes, and how it says a run failed without throwing (inspect's report with errors).

export interface Output {
  out(text: string): void;
  err(text: string): void;
  fail(): void;
}
