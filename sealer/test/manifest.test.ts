import { test } from "node:test";
import assert from "node:assert/strict";
import { canonicalJson } from "../../shared/canonical-json.ts";

test("canonical JSON sorts keys by UTF-16 code units, drops white space, keeps array order", () => {
  assert.equal(canonicalJson({ b: 1, a: [3, { d: null, c: "é" }], "€": true, "\u0080": 2 }), '{"a":[3,{"c":"é","d":null}],"b":1,"\u0080":2,"€":true}');
  assert.equal(canonicalJson({ z: 1, a: 2 }), canonicalJson({ a: 2, z: 1 }));
});

test("canonical JSON serialises numbers as ECMAScript does", () => {
  assert.equal(canonicalJson([1e21, 0.1, -0, 1.5e-7, 100]), "[1e+21,0.1,0,1.5e-7,100]");
});
