//! The walk (`schema_guard::walk`) against the compiled validator (boon),
//! on generated schemas and arguments: for every schema the walk covers,
//! the schema compiles, and the walk's answer on every generated argument
//! value is the compiled validator's. Schemas are drawn from the covered
//! keywords with values the meta-schema refuses and uncovered keywords
//! mixed in, so the test also shows that `covers` turns those away.

use schema_guard::{CompiledSchema, close_objects, walk};
use toolvet_pdk::serde_json::{self, Value, json};

/// A small deterministic generator (xorshift64*), so a failure replays.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const KEYS: &[&str] = &["path", "mode", "n", "tags", "meta"];
const STRINGS: &[&str] = &["", "a", "ab", "abc", "café", "日本語です", "r", "w", "path"];
const NUMBERS: &[&str] = &[
    "0",
    "1",
    "1.0",
    "2",
    "2.5",
    "-1",
    "-0.5",
    "10",
    "100",
    "1e2",
    "3.0000001",
    "-0.0",
    // Integers past 2^53, which two different values share as an `f64`.
    "9007199254740992",
    "9007199254740993",
    "-9007199254740993",
    "18446744073709551614",
    "18446744073709551615",
];
const TYPES: &[&str] = &[
    "null", "boolean", "object", "array", "number", "string", "integer",
];

fn number(rng: &mut Rng) -> Value {
    let text: &&str = rng.pick(NUMBERS);
    serde_json::from_str(text).unwrap()
}

/// A JSON value of at most `depth` levels, with keys and strings from small
/// sets so that they meet the schemas' `properties`, `enum` and `const`.
fn value(rng: &mut Rng, depth: usize) -> Value {
    let kinds = if depth == 0 { 4 } else { 6 };
    match rng.below(kinds) {
        0 => Value::Null,
        1 => Value::Bool(rng.chance(50)),
        2 => number(rng),
        3 => Value::String(rng.pick(STRINGS).to_string()),
        4 => Value::Array((0..rng.below(4)).map(|_| value(rng, depth - 1)).collect()),
        _ => Value::Object(
            (0..rng.below(4))
                .map(|_| (rng.pick(KEYS).to_string(), value(rng, depth - 1)))
                .collect(),
        ),
    }
}

/// A schema of at most `depth` levels: mostly covered keywords with valid
/// values, sometimes a value the meta-schema refuses or an uncovered
/// keyword.
fn schema(rng: &mut Rng, depth: usize) -> Value {
    if rng.chance(10) {
        return Value::Bool(rng.chance(70));
    }
    let mut map = serde_json::Map::new();
    for _ in 0..rng.below(5) {
        let (key, val) = keyword(rng, depth);
        map.insert(key.to_string(), val);
    }
    Value::Object(map)
}

fn keyword(rng: &mut Rng, depth: usize) -> (&'static str, Value) {
    let broken = rng.chance(6);
    let nested = |rng: &mut Rng| {
        if depth == 0 {
            Value::Bool(rng.chance(50))
        } else {
            schema(rng, depth - 1)
        }
    };
    match rng.below(22) {
        0 | 1 => {
            let v = if broken {
                json!(rng.pick(&["strnig", "int", ""]))
            } else if rng.chance(60) {
                json!(rng.pick(TYPES))
            } else {
                let n = rng.below(3) + usize::from(!rng.chance(5));
                Value::Array((0..n).map(|_| json!(rng.pick(TYPES))).collect())
            };
            ("type", v)
        }
        2 | 3 => {
            let props = (0..rng.below(4))
                .map(|_| (rng.pick(KEYS).to_string(), nested(rng)))
                .collect();
            ("properties", Value::Object(props))
        }
        4 => {
            let v = if broken {
                json!([1, "a"])
            } else {
                Value::Array((0..rng.below(3)).map(|_| json!(rng.pick(KEYS))).collect())
            };
            ("required", v)
        }
        5 => ("additionalProperties", nested(rng)),
        6 => ("items", if broken { json!([{}, {}]) } else { nested(rng) }),
        7 => (
            "unevaluatedProperties",
            if broken {
                json!({})
            } else {
                json!(rng.chance(50))
            },
        ),
        8 => {
            let n = rng.below(3) + usize::from(!broken);
            (
                "enum",
                Value::Array((0..n).map(|_| value(rng, 1)).collect()),
            )
        }
        9 => ("const", value(rng, 1)),
        10 => {
            let key = *rng.pick(&[
                "minLength",
                "maxLength",
                "minItems",
                "maxItems",
                "minProperties",
                "maxProperties",
            ]);
            let v = if broken {
                json!(rng.pick(&[-1.0, 1.5]))
            } else {
                json!(rng.below(7))
            };
            (key, v)
        }
        11 | 12 => {
            let key = *rng.pick(&["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]);
            (key, if broken { json!(true) } else { number(rng) })
        }
        13 => (
            "uniqueItems",
            if broken {
                json!(1)
            } else {
                json!(rng.chance(50))
            },
        ),
        14 => ("format", json!(rng.pick(&["email", "date", "uri", "ipv4"]))),
        15 => (
            *rng.pick(&["title", "description", "$comment"]),
            if broken { json!(3) } else { json!("text") },
        ),
        16 => ("default", value(rng, 1)),
        17 => (
            "examples",
            if broken { json!("x") } else { json!([1, "a"]) },
        ),
        18 => (
            *rng.pick(&["readOnly", "writeOnly", "deprecated"]),
            if broken {
                json!("yes")
            } else {
                json!(rng.chance(50))
            },
        ),
        19 => ("pattern", json!("^a")),
        20 => ("multipleOf", json!(0.5)),
        _ => (
            *rng.pick(&["allOf", "anyOf"]),
            Value::Array(vec![nested(rng)]),
        ),
    }
}

const DRAFTS: &[Option<&str>] = &[
    None,
    None,
    Some("https://json-schema.org/draft/2020-12/schema"),
    Some("https://json-schema.org/draft/2020-12/schema#"),
    Some("https://json-schema.org/draft/2019-09/schema"),
    Some("http://json-schema.org/draft-07/schema#"),
    Some("http://json-schema.org/draft-07/schema"),
    Some("http://json-schema.org/draft-06/schema#"),
    Some("http://json-schema.org/draft-04/schema#"),
    Some("https://example.com/my-draft"),
];

#[test]
fn the_walk_answers_what_the_compiled_validator_answers_on_every_schema_it_covers() {
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    let (mut covered, mut refused, mut valid, mut invalid) = (0, 0, 0, 0);
    for round in 0..6_000 {
        let mut document = schema(&mut rng, 2);
        if let (Some(url), Value::Object(map)) = (rng.pick(DRAFTS), &mut document) {
            map.insert("$schema".into(), json!(url));
        }
        let assert_formats = rng.chance(50);
        if rng.chance(25) {
            close_objects(&mut document);
        }
        if !walk::covers(&document, assert_formats) {
            refused += 1;
            continue;
        }
        covered += 1;
        let compiled = CompiledSchema::compile_document(document.clone(), assert_formats)
            .unwrap_or_else(|e| {
                panic!("round {round}: covered but does not compile: {e}\n{document}")
            });
        for _ in 0..20 {
            let instance = value(&mut rng, 3);
            let expected = compiled.validate(&instance, 1).is_ok();
            let walked = walk::valid(&document, &instance);
            assert_eq!(
                walked, expected,
                "round {round} (formats asserted: {assert_formats}):\nschema {document}\narguments {instance}"
            );
            if expected {
                valid += 1;
            } else {
                invalid += 1;
            }
        }
    }
    println!("covered {covered}, refused {refused}; arguments valid {valid}, invalid {invalid}");
    // Not vacuous: many schemas covered and many turned away, and both
    // answers common.
    assert!(covered > 1_500 && refused > 1_500, "{covered} / {refused}");
    assert!(valid > 5_000 && invalid > 5_000, "{valid} / {invalid}");
}

#[test]
fn typical_tool_schemas_are_covered_and_the_rest_compiled() {
    // The guard's own warm-up schema: a file tool's, with the keywords
    // tool schemas use most.
    let file: Value = serde_json::from_str(schema_guard::WARM_UP_SCHEMA).unwrap();
    assert!(walk::covers(&file, true));
    assert!(walk::valid(
        &file,
        &json!({"path": "a", "content": "", "size": 3.0})
    ));
    assert!(!walk::valid(&file, &json!({"path": "", "content": ""})));
    assert!(!walk::valid(
        &file,
        &json!({"path": "a", "content": "", "extra": 1})
    ));
    for uncovered in [
        json!({"$ref": "#/$defs/x", "$defs": {"x": {}}}),
        json!({"type": "string", "pattern": "^a"}),
        json!({"type": "string", "format": "email"}),
        json!({"$schema": "http://json-schema.org/draft-04/schema#", "type": "object"}),
        json!({"properties": {"a": {"minLength": -1}}}),
        json!({"items": [{"type": "string"}]}),
        json!({"type": "object", "nullable": true}),
    ] {
        assert!(!walk::covers(&uncovered, true), "{uncovered}");
    }
    // Found by review: strict bounds past 2^53 compare as f64, as the
    // validator does; a length bound past u32::MAX (the plugin's `usize`,
    // where the validator's copy would wrap) is left to the validator.
    let strict = json!({"type": "integer", "exclusiveMaximum": 9007199254740993_u64});
    assert!(walk::covers(&strict, true));
    assert!(!walk::valid(&strict, &json!(9007199254740992_u64)));
    assert!(!walk::covers(&json!({"maxLength": 4294967296_u64}), true));
    assert!(walk::covers(&json!({"maxLength": 4294967295_u64}), true));
    // A format is an annotation in 2020-12 unless asserted; drafts 7 and
    // earlier assert it whatever the setting.
    assert!(walk::covers(&json!({"format": "email"}), false));
    assert!(!walk::covers(
        &json!({"$schema": "http://json-schema.org/draft-07/schema#", "format": "email"}),
        false
    ));
}
