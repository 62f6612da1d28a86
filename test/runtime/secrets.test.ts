import { describe, expect, it } from "vitest";
import { Masker, maskClipped, maskText } from "../../src/runtime/secrets/secrets.js";

const KEY = "Zk3/q+Lw9=Rt";

describe("masking secrets", () => {
  it("leaves values shorter than 4 characters alone (masking them would mangle ordinary text)", () => {
    expect(maskText("id=abc and 12", ["abc", "12"])).toBe("id=abc and 12");
    expect(maskText("key abcd", ["abcd"])).toBe("key ****");
  });

  it("masks escapes nested three deep, and leaves a fourth layer (a bound on the work done) as it is", () => {
    const slash = (times: number): string => `%${"25".repeat(times)}2F`;
    const nested = (times: number): string => KEY.replace("/", slash(times));
    expect(maskText(`a ${nested(2)} b`, [KEY])).toBe("a **** b");
    expect(maskText(`a ${nested(3)} b`, [KEY])).toBe(`a ${nested(3)} b`);
  });

  it("masks a whole escape, never half of one", () => {
    expect(maskText(`[${KEY.replace("/", "&#x2F;").replace("+", "&plus;")}]`, [KEY])).toBe("[****]");
    expect(maskText(`"${KEY.replace("/", "\\/")}"`, [KEY])).toBe('"****"');
  });

  it("cuts after masking: a secret across the cut is masked whole; a piece of one is cut like any other text", () => {
    const masker = new Masker([KEY]);
    const text = `${"x".repeat(10)}${KEY}${"y".repeat(10)}`;
    // The cut falls inside the key: it is masked whole rather than cut.
    expect(masker.maskedPrefix({ text, chars: 15 })).toBe(`${"x".repeat(10)}****`);
    // A piece of the key at the cut (the rest of it not there) is no complete form: it is cut where the cut is, as
    // a wrong guess of the same length would be, so a caller placing guesses there learns nothing.
    for (const piece of [KEY.slice(0, 7), encodeURIComponent(KEY).slice(0, 9), "Zk3"]) {
      const cut = `${"x".repeat(10)}${piece}`;
      expect(masker.maskedPrefix({ text: `${cut}${"y".repeat(10)}`, chars: cut.length })).toBe(cut);
      expect(masker.clip(`${cut}${"y".repeat(10)}`, cut.length)).toEqual({ text: cut, cut: true });
    }
  });

  it("clips messages after masking them, marking the cut", () => {
    const message = `${"m".repeat(190)} secret=${KEY} and more`;
    const clipped = maskClipped({ text: message, secrets: [KEY], maxChars: 200 });
    expect(clipped).toBe(`${"m".repeat(190)} secret=…`);
    expect(maskClipped({ text: "short", secrets: [KEY], maxChars: 200 })).toBe("short");
  });

  it("masks bytes whatever their charset: UTF-8, UTF-16 either way round", () => {
    const masker = new Masker([KEY]);
    for (const bytes of [
      Buffer.from(`<${KEY}>`),
      Buffer.from(`<${KEY}>`, "utf16le"),
      Buffer.from(`<${KEY}>`, "utf16le").swap16(),
    ]) {
      const masked = masker.maskBytes(bytes);
      expect(masked.toString("latin1").replace(/\0/g, "")).not.toContain(KEY);
      expect(masked.toString("latin1")).toContain("****");
    }
  });
});
