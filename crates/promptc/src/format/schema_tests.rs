//! Unit tests of `format::schema`: the schemas are JSON Schema documents, and they describe
//! exactly the keys the loader reads — every key the serde types accept is in the schema, and
//! every key of the schema is one the serde types accept.

use std::collections::{BTreeMap, BTreeSet};

use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};
use serde::Deserialize;
use serde_json::Value;

use super::super::manifest::RawManifest;
use super::super::tool::RawTool;

#[test]
fn schemas_are_json() {
    for s in [super::manifest(), super::tools()] {
        let v: Value = serde_json::from_str(&s).unwrap();
        assert_eq!(v["$schema"], "https://json-schema.org/draft/2020-12/schema");
        assert!(v["title"].is_string());
    }
}

/// The struct name → field names serde's derive asks for while deserializing `T`.
type Fields = BTreeMap<&'static str, Vec<&'static str>>;

/// A deserializer that gives every type a value of the right shape (one entry for each map,
/// one item for each list, `Some` for each option, until `depth` runs out) and records the
/// fields of every struct on the way.
struct Tracer<'f> {
    fields: &'f mut Fields,
    depth: usize,
}

impl<'f> Tracer<'f> {
    fn nested(&mut self) -> Tracer<'_> {
        Tracer { fields: self.fields, depth: self.depth.saturating_sub(1) }
    }
}

type E = de::value::Error;

impl<'de> de::Deserializer<'de> for Tracer<'_> {
    type Error = E;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, E> {
        v.visit_unit()
    }
    fn deserialize_bool<V: Visitor<'de>>(self, v: V) -> Result<V::Value, E> {
        v.visit_bool(false)
    }
    fn deserialize_u32<V: Visitor<'de>>(self, v: V) -> Result<V::Value, E> {
        v.visit_u32(0)
    }
    fn deserialize_u64<V: Visitor<'de>>(self, v: V) -> Result<V::Value, E> {
        v.visit_u64(0)
    }
    fn deserialize_f64<V: Visitor<'de>>(self, v: V) -> Result<V::Value, E> {
        v.visit_f64(0.0)
    }
    fn deserialize_str<V: Visitor<'de>>(self, v: V) -> Result<V::Value, E> {
        v.visit_str("x")
    }
    fn deserialize_string<V: Visitor<'de>>(self, v: V) -> Result<V::Value, E> {
        v.visit_str("x")
    }
    fn deserialize_option<V: Visitor<'de>>(mut self, v: V) -> Result<V::Value, E> {
        if self.depth == 0 {
            v.visit_none()
        } else {
            v.visit_some(self.nested())
        }
    }
    fn deserialize_seq<V: Visitor<'de>>(mut self, v: V) -> Result<V::Value, E> {
        let n = usize::from(self.depth > 0);
        v.visit_seq(Items { tracer: self.nested(), left: n })
    }
    fn deserialize_tuple<V: Visitor<'de>>(mut self, len: usize, v: V) -> Result<V::Value, E> {
        v.visit_seq(Items { tracer: self.nested(), left: len })
    }
    fn deserialize_map<V: Visitor<'de>>(mut self, v: V) -> Result<V::Value, E> {
        let keys = if self.depth > 0 { vec!["x"] } else { Vec::new() };
        v.visit_map(Entries { tracer: self.nested(), keys, kind: Kind::Map })
    }
    fn deserialize_struct<V: Visitor<'de>>(
        mut self,
        name: &'static str,
        fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, E> {
        self.fields.entry(name).or_insert_with(|| fields.to_vec());
        v.visit_map(Entries { tracer: self.nested(), keys: fields.to_vec(), kind: Kind::Struct })
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(self, name: &'static str, v: V) -> Result<V::Value, E> {
        assert_eq!(name, "__yaml_spanned", "only serde_saphyr's Spanned is a newtype here");
        v.visit_newtype_struct(Spanned(self))
    }
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        variants: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, E> {
        v.visit_enum(variants[0].into_deserializer())
    }
    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, E> {
        v.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        i8 i16 i32 i64 i128 u8 u16 u128 f32 char bytes byte_buf unit unit_struct tuple_struct identifier
    }
}

/// A `Spanned<T>`: the map serde_saphyr's deserializer gives it, with `T` traced.
struct Spanned<'f>(Tracer<'f>);

impl<'de> de::Deserializer<'de> for Spanned<'_> {
    type Error = E;
    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, E> {
        let keys = vec!["__serde_saphyr_private_spanned", "value", "referenced", "defined"];
        v.visit_map(Entries { tracer: self.0, keys, kind: Kind::Spanned })
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

struct Items<'f> {
    tracer: Tracer<'f>,
    left: usize,
}

impl<'de> de::SeqAccess<'de> for Items<'_> {
    type Error = E;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, E> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        seed.deserialize(self.tracer.nested()).map(Some)
    }
}

struct Entries<'f> {
    tracer: Tracer<'f>,
    keys: Vec<&'static str>,
    kind: Kind,
}

/// What a map is: a struct (its keys are field names), a map (keys are traced) or the map
/// serde_saphyr gives a `Spanned` (its locations are not traced).
#[derive(PartialEq)]
enum Kind {
    Struct,
    Map,
    Spanned,
}

impl<'de> de::MapAccess<'de> for Entries<'_> {
    type Error = E;
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, E> {
        let Some(&key) = self.keys.first() else { return Ok(None) };
        if self.kind == Kind::Map {
            return seed.deserialize(self.tracer.nested()).map(Some);
        }
        seed.deserialize(key.into_deserializer()).map(Some)
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, E> {
        let key = self.keys.remove(0);
        if self.kind == Kind::Spanned && key != "value" {
            let mut ignored = Fields::new();
            return seed.deserialize(Tracer { fields: &mut ignored, depth: 2 });
        }
        seed.deserialize(self.tracer.nested())
    }
}

/// The fields of every `Raw…` struct reached from `T`.
fn loader_keys<T: for<'de> Deserialize<'de>>() -> Fields {
    let mut fields = Fields::new();
    T::deserialize(Tracer { fields: &mut fields, depth: 24 }).expect("the tracer gives every type a value");
    fields.retain(|name, _| name.starts_with("Raw"));
    fields
}

/// The keys of the object schema `s` (its `properties`), checking that it refuses others.
fn schema_keys(name: &str, s: &Value) -> Vec<String> {
    assert_eq!(s["additionalProperties"], false, "{name} refuses unknown keys, like the loader");
    s["properties"].as_object().map(|p| p.keys().cloned().collect()).unwrap_or_default()
}

/// Every struct's fields are its schema's keys, and every object schema with keys is a struct.
fn assert_same_keys(root: &str, schema: &Value, fields: &Fields) {
    let defs = schema["$defs"].as_object().unwrap();
    let mut schemas: BTreeMap<&str, &Value> = defs.iter().map(|(k, v)| (k.as_str(), v)).collect();
    if schema["type"] == "object" {
        schemas.insert(root, schema);
    }
    let structs: BTreeSet<&str> = fields.keys().copied().collect();
    let objects: BTreeSet<&str> =
        schemas.iter().filter(|(_, s)| s.get("properties").is_some()).map(|(k, _)| *k).collect();
    assert_eq!(structs, objects, "the schema has a definition for each struct the loader reads, and no other");
    for (name, keys) in fields {
        let mut in_schema = schema_keys(name, schemas[name]);
        let mut loaded: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
        in_schema.sort();
        loaded.sort();
        assert_eq!(loaded, in_schema, "the keys of {name}: loaded (left) and in the schema (right)");
    }
}

#[test]
fn the_manifest_schema_has_exactly_the_keys_the_loader_reads() {
    let fields = loader_keys::<RawManifest>();
    assert!(fields.len() > 15, "{fields:?}");
    let schema: Value = serde_json::from_str(&super::manifest()).unwrap();
    assert_same_keys("RawManifest", &schema, &fields);
}

#[test]
fn the_tools_schema_has_exactly_the_keys_the_loader_reads() {
    let fields = loader_keys::<Vec<RawTool>>();
    assert!(fields.contains_key("RawParam") && fields.contains_key("RawVariant"), "{fields:?}");
    let schema: Value = serde_json::from_str(&super::tools()).unwrap();
    assert_eq!(schema["items"]["$ref"], "#/$defs/RawTool");
    assert_same_keys("RawTool", &schema, &fields);
}

/// Whether a value of `null` passes schema `s` (`$ref`s resolved in `defs`): every constraint
/// present must admit it.
fn admits_null(s: &Value, defs: &serde_json::Map<String, Value>) -> bool {
    let Some(o) = s.as_object() else { return s == &Value::Bool(true) };
    let type_ok = match o.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "null"),
        _ => true,
    };
    let enum_ok = o.get("enum").and_then(Value::as_array).is_none_or(|e| e.contains(&Value::Null));
    let const_ok = o.get("const").is_none_or(Value::is_null);
    let any_ok = ["anyOf", "oneOf"]
        .iter()
        .filter_map(|k| o.get(*k).and_then(Value::as_array))
        .all(|alts| alts.iter().any(|a| admits_null(a, defs)));
    let ref_ok = o
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/$defs/"))
        .is_none_or(|name| admits_null(&defs[name], defs));
    type_ok && enum_ok && const_ok && any_ok && ref_ok
}

/// The keys whose schema a helper writes by hand (enums from the model's lists, amounts,
/// switch defaults) are optional `Option`s the loader reads `null` into: their schemas say so.
#[test]
fn hand_written_optional_keys_admit_null_as_the_loader_does() {
    let manifest: Value = serde_json::from_str(&super::manifest()).unwrap();
    let tools: Value = serde_json::from_str(&super::tools()).unwrap();
    let cases = [
        (&manifest, "RawSection", "generate"),
        (&manifest, "RawSlot", "kind"),
        (&manifest, "RawSwitch", "default"),
        (&manifest, "RawBudget", "total"),
        (&manifest, "RawBudget", "prompt"),
        (&manifest, "RawBudget", "tools"),
        (&manifest, "RawTemplates", "compat"),
        (&manifest, "RawTokens", "tokenizer"),
        (&tools, "RawParam", "enum"),
    ];
    for (schema, def, key) in cases {
        let defs = schema["$defs"].as_object().unwrap();
        let property = &defs[def]["properties"][key];
        assert!(!property.is_null(), "{def}.{key} is in the schema");
        assert!(admits_null(property, defs), "{def}.{key} admits null: {property:#}");
    }
    // And a value outside the model's list is still refused.
    let generate = &manifest["$defs"]["RawSection"]["properties"]["generate"];
    assert!(!generate["enum"].as_array().unwrap().contains(&Value::from("tool_doc")), "{generate:#}");
    let items = &tools["$defs"]["RawParam"]["properties"]["enum"]["items"]["type"];
    assert!(!items.as_array().unwrap().contains(&Value::from("object")), "enum items: {items:#}");
}
