//! The TypeScript types of the npm package, generated from the serde types.
//!
//! `tsify` and `ts-rs` derive TypeScript from Rust types, but both need a derive on every type
//! of the core, and neither is `no_std` (tsify also pulls in wasm-bindgen), which the core must
//! stay. So this generator reads the Rust source of the core and of this crate with `syn`, keeps
//! the types that derive serde's `Serialize` or `Deserialize`, and writes what serde puts on the
//! wire: field and variant names after `rename` / `rename_all`, internally tagged enums, optional
//! fields (`default`, `skip_serializing_if`), transparent and newtype structs, `Option` as
//! `T | null` (serde-wasm-bindgen's `json_compatible` writes `None` as `null`), `u64` as `number`.
//! A field under `flatten` whose type is a serde struct of the sources is written as that
//! struct's fields, in place (the core's `EstimateInput` is its sections' flat keys). An
//! attribute it does not understand (`untagged`, `with`, a `flatten` of anything else, …)
//! stops it, so it never writes a wrong type.
//!
//! A type whose input form differs from its output form (the core's `Architecture`: every field
//! is optional on input under `#[serde(default)]`, always present on output) is written twice:
//! `Architecture` and `ArchitectureInput`.
//!
//! `generated_types_are_fresh` regenerates `ts/types.d.ts` and fails when the committed file was
//! stale (it is rewritten, so a second run passes), as the core's `sourcegen_*` tests do.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{
    Attribute, Expr, Fields, GenericArgument, Ident, Item, ItemStruct, Lit, Meta, PathArguments,
    Token, Type,
};

/// The types the functions take.
const INPUT_ROOTS: &[&str] = &[
    "EstimateInput",
    "RecommendOptions",
    "MigJob",
    "MigOptionsInput",
];
/// The types the functions return.
const OUTPUT_ROOTS: &[&str] = &[
    "Estimate",
    "Solutions",
    "Recommendation",
    "MigResult",
    "Diagnosis",
    "Launch",
    "ReadCommand",
    "ReadConfig",
    "ParsedConfig",
    "SafetensorsHeader",
    "GgufHeader",
    // A model looked up on a hub (`HubLookup.finish`, `fetchModel`).
    "HubModel",
    "Gpu",
    "Preset",
    "Offer",
    "Platform",
    "ModelFit",
    "Grid",
    // The JSON of an error (a thrown `VramfitError` carries its `kind` and `field`).
    "InputError",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Mode {
    Input,
    Output,
}

#[derive(Clone, Debug, Default)]
struct SerdeAttrs {
    rename: Option<String>,
    rename_all: Option<String>,
    tag: Option<String>,
    default: bool,
    transparent: bool,
    skip_serializing_if: bool,
    skip_serializing: bool,
    skip_deserializing: bool,
    flatten: bool,
}

#[derive(Clone)]
struct Field {
    name: String,
    ty: Type,
    docs: Vec<String>,
    attrs: SerdeAttrs,
}

#[derive(Clone)]
enum Shape {
    Unit,
    Named(Vec<Field>),
    Tuple(Vec<Type>),
}

#[derive(Clone)]
struct Variant {
    name: String,
    docs: Vec<String>,
    attrs: SerdeAttrs,
    shape: Shape,
}

#[derive(Clone)]
enum Body {
    Struct(Shape),
    Enum(Vec<Variant>),
}

#[derive(Clone)]
struct Def {
    /// The source file, to tell apart types of the same name in different modules.
    file: String,
    docs: Vec<String>,
    attrs: SerdeAttrs,
    body: Body,
}

/// The macro that declares the core's input sections, each field with its default
/// (`crates/vramfit/src/estimate/input_wire.rs`).
const SECTIONS_MACRO: &str = "input_sections";

/// An `input_sections!` invocation read as the structs it writes: each section with its docs,
/// serde's derives and `#[serde(default)]`, its fields without their defaults. (The flat wire
/// struct it also writes is read, never returned, so it has no TypeScript.)
struct Sections(Vec<ItemStruct>);

impl Parse for Sections {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut out = Vec::new();
        while !input.is_empty() {
            let attrs = input.call(Attribute::parse_outer)?;
            let _section: Ident = input.parse()?;
            input.parse::<Token![=>]>()?;
            input.parse::<Token![pub]>()?;
            input.parse::<Token![struct]>()?;
            let name: Ident = input.parse()?;
            let body;
            syn::braced!(body in input);
            let mut fields = Vec::new();
            while !body.is_empty() {
                let field_attrs = body.call(Attribute::parse_outer)?;
                body.parse::<Token![pub]>()?;
                let field: Ident = body.parse()?;
                body.parse::<Token![:]>()?;
                let ty: Type = body.parse()?;
                body.parse::<Token![=]>()?;
                let _default: Expr = body.parse()?;
                if !body.is_empty() {
                    body.parse::<Token![,]>()?;
                }
                fields.push(quote::quote! { #(#field_attrs)* pub #field: #ty });
            }
            out.push(syn::parse_quote! {
                #(#attrs)*
                #[derive(Clone, Debug, PartialEq)]
                #[cfg_attr(
                    feature = "serde",
                    derive(serde::Serialize, serde::Deserialize),
                    serde(default)
                )]
                pub struct #name { #(#fields,)* }
            });
        }
        Ok(Sections(out))
    }
}

/// The serde types of the given sources, by name (several where modules reuse a name).
///
/// A field with no docs of its own takes those of the same field of a plain struct of the same
/// name in the same file: the catalog's `Gpu` is serialized through a struct apart (its wire
/// form), whose fields its own documents.
fn collect(sources: &[(String, String)]) -> Result<BTreeMap<String, Vec<Def>>, String> {
    let mut defs: BTreeMap<String, Vec<Def>> = BTreeMap::new();
    // (file, struct) → fields, of the structs that derive no serde trait.
    let mut plain: BTreeMap<(String, String), Vec<Field>> = BTreeMap::new();
    for (path, text) in sources {
        let file = syn::parse_file(text).map_err(|e| format!("{path}: {e}"))?;
        let mut items = file.items;
        while let Some(item) = items.pop() {
            let (ident, attrs, body) = match item {
                Item::Mod(m) => {
                    if let Some((_, inner)) = m.content {
                        items.extend(inner);
                    }
                    continue;
                }
                Item::Macro(m)
                    if m.mac
                        .path
                        .segments
                        .last()
                        .is_some_and(|s| s.ident == SECTIONS_MACRO) =>
                {
                    let sections: Sections =
                        m.mac.parse_body().map_err(|e| format!("{path}: {e}"))?;
                    items.extend(sections.0.into_iter().map(Item::Struct));
                    continue;
                }
                Item::Struct(s) => {
                    let shape = shape(&s.fields, path)?;
                    (s.ident, s.attrs, Body::Struct(shape))
                }
                Item::Enum(e) => {
                    let mut variants = Vec::new();
                    for v in e.variants {
                        let attrs = serde_attrs(&v.attrs, path)?;
                        variants.push(Variant {
                            name: v.ident.to_string(),
                            docs: docs(&v.attrs),
                            attrs,
                            shape: shape(&v.fields, path)?,
                        });
                    }
                    (e.ident, e.attrs, Body::Enum(variants))
                }
                _ => continue,
            };
            if !derives_serde(&attrs) {
                if let Body::Struct(Shape::Named(fields)) = body {
                    plain.insert((path.clone(), ident.to_string()), fields);
                }
                continue;
            }
            let def = Def {
                file: path.clone(),
                docs: docs(&attrs),
                attrs: serde_attrs(&attrs, path)?,
                body,
            };
            defs.entry(ident.to_string()).or_default().push(def);
        }
    }
    for (name, list) in &mut defs {
        for def in list {
            let own = plain.get(&(def.file.clone(), name.clone()));
            if let (Body::Struct(Shape::Named(fields)), Some(own)) = (&mut def.body, own) {
                for f in fields.iter_mut().filter(|f| f.docs.is_empty()) {
                    if let Some(p) = own.iter().find(|p| p.name == f.name) {
                        f.docs = p.docs.clone();
                    }
                }
            }
        }
    }
    flatten_fields(&mut defs)?;
    Ok(defs)
}

/// Writes each field under `flatten` as the fields of its struct, in place: an input-side
/// `default` of that struct makes them optional, as serde reads them.
fn flatten_fields(defs: &mut BTreeMap<String, Vec<Def>>) -> Result<(), String> {
    let snapshot = defs.clone();
    for (name, list) in defs.iter_mut() {
        for def in list {
            let Body::Struct(Shape::Named(fields)) = &mut def.body else {
                continue;
            };
            if !fields.iter().any(|f| f.attrs.flatten) {
                continue;
            }
            let mut out = Vec::new();
            for f in fields.drain(..) {
                if !f.attrs.flatten {
                    out.push(f);
                    continue;
                }
                let ty = match &f.ty {
                    Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
                    _ => None,
                };
                let inner = ty
                    .as_ref()
                    .and_then(|t| snapshot.get(t))
                    .and_then(|l| l.first())
                    .ok_or_else(|| {
                        format!(
                            "{name}: `flatten` of `{}`, not a serde struct of the sources",
                            f.name
                        )
                    })?;
                let Body::Struct(Shape::Named(inner_fields)) = &inner.body else {
                    return Err(format!(
                        "{name}: `flatten` of `{}`, not a struct with named fields",
                        f.name
                    ));
                };
                for g in inner_fields {
                    if g.attrs.flatten {
                        return Err(format!("{name}: nested `flatten` in `{}`", f.name));
                    }
                    let mut g = g.clone();
                    g.attrs.default |= inner.attrs.default || f.attrs.default;
                    if g.attrs.rename.is_none() && inner.attrs.rename_all.is_some() {
                        g.attrs.rename =
                            Some(rename_field(inner.attrs.rename_all.as_deref(), &g.name)?);
                    }
                    out.push(g);
                }
            }
            *fields = out;
        }
    }
    Ok(())
}

fn shape(fields: &Fields, path: &str) -> Result<Shape, String> {
    Ok(match fields {
        Fields::Unit => Shape::Unit,
        Fields::Unnamed(u) => Shape::Tuple(u.unnamed.iter().map(|f| f.ty.clone()).collect()),
        Fields::Named(n) => {
            let mut out = Vec::new();
            for f in &n.named {
                let ident = f.ident.as_ref().expect("named field").to_string();
                out.push(Field {
                    name: ident.trim_start_matches("r#").to_string(),
                    ty: f.ty.clone(),
                    docs: docs(&f.attrs),
                    attrs: serde_attrs(&f.attrs, path)?,
                });
            }
            Shape::Named(out)
        }
    })
}

/// The attribute lists that apply when the `serde` feature is on: plain attributes, and the
/// contents of `cfg_attr(…)`.
fn active_metas(attrs: &[Attribute]) -> Vec<Meta> {
    let mut out = Vec::new();
    for a in attrs {
        if a.path().is_ident("cfg_attr") {
            if let Ok(list) = a.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated) {
                out.extend(list.into_iter().skip(1));
            }
        } else {
            out.push(a.meta.clone());
        }
    }
    out
}

fn derives_serde(attrs: &[Attribute]) -> bool {
    active_metas(attrs).iter().any(|m| {
        m.path().is_ident("derive")
            && m.require_list().is_ok_and(|l| {
                let t = l.tokens.to_string();
                t.contains("Serialize") || t.contains("Deserialize")
            })
    })
}

fn docs(attrs: &[Attribute]) -> Vec<String> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(l) => match &l.lit {
                    Lit::Str(s) => Some(s.value().trim_end().to_string()),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        })
        .map(|l| l.strip_prefix(' ').unwrap_or(&l).to_string())
        .collect()
}

fn serde_attrs(attrs: &[Attribute], path: &str) -> Result<SerdeAttrs, String> {
    let mut s = SerdeAttrs::default();
    for m in active_metas(attrs) {
        if !m.path().is_ident("serde") {
            continue;
        }
        let list = m
            .require_list()
            .map_err(|e| format!("{path}: serde attribute: {e}"))?;
        let inner = list
            .parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
            .map_err(|e| format!("{path}: serde attribute: {e}"))?;
        for m in inner {
            let key = m
                .path()
                .get_ident()
                .map(ToString::to_string)
                .unwrap_or_default();
            let value = match &m {
                Meta::NameValue(nv) => match &nv.value {
                    Expr::Lit(l) => match &l.lit {
                        Lit::Str(v) => Some(v.value()),
                        _ => None,
                    },
                    _ => None,
                },
                _ => None,
            };
            match (key.as_str(), value) {
                ("rename", Some(v)) => s.rename = Some(v),
                ("rename_all", Some(v)) => s.rename_all = Some(v),
                ("tag", Some(v)) => s.tag = Some(v),
                ("default", _) => s.default = true,
                ("transparent", None) => s.transparent = true,
                ("skip_serializing_if", Some(_)) => s.skip_serializing_if = true,
                ("skip_serializing", None) => s.skip_serializing = true,
                ("skip_deserializing", None) => s.skip_deserializing = true,
                ("flatten", None) => s.flatten = true,
                ("skip", None) => {
                    s.skip_serializing = true;
                    s.skip_deserializing = true;
                }
                // Checked by serde, not visible in the type.
                ("deny_unknown_fields", None) => {}
                _ => {
                    return Err(format!(
                        "{path}: the TypeScript generator does not understand `#[serde({})]`; teach it (crates/vramfit-wasm/tests/dts.rs)",
                        quote::quote!(#m)
                    ));
                }
            }
        }
    }
    Ok(s)
}

/// serde's `rename_all` on a variant name (PascalCase in Rust).
fn rename_variant(rule: Option<&str>, v: &str) -> Result<String, String> {
    let snake = || {
        let mut s = String::new();
        for (i, c) in v.char_indices() {
            if i > 0 && c.is_uppercase() {
                s.push('_');
            }
            s.push(c.to_ascii_lowercase());
        }
        s
    };
    Ok(match rule {
        None | Some("PascalCase") => v.to_string(),
        Some("lowercase") => v.to_ascii_lowercase(),
        Some("UPPERCASE") => v.to_ascii_uppercase(),
        Some("camelCase") => v[..1].to_ascii_lowercase() + &v[1..],
        Some("snake_case") => snake(),
        Some("SCREAMING_SNAKE_CASE") => snake().to_ascii_uppercase(),
        Some("kebab-case") => snake().replace('_', "-"),
        Some("SCREAMING-KEBAB-CASE") => snake().to_ascii_uppercase().replace('_', "-"),
        Some(r) => return Err(format!("unknown rename_all rule `{r}`")),
    })
}

/// serde's `rename_all` on a field name (snake_case in Rust).
fn rename_field(rule: Option<&str>, f: &str) -> Result<String, String> {
    let pascal = || {
        f.split('_')
            .map(|w| {
                let mut c = w.chars();
                c.next()
                    .map(|h| h.to_ascii_uppercase().to_string() + c.as_str())
                    .unwrap_or_default()
            })
            .collect::<String>()
    };
    Ok(match rule {
        None | Some("snake_case") | Some("lowercase") => f.to_string(),
        Some("UPPERCASE") | Some("SCREAMING_SNAKE_CASE") => f.to_ascii_uppercase(),
        Some("PascalCase") => pascal(),
        Some("camelCase") => {
            let p = pascal();
            p[..1].to_ascii_lowercase() + &p[1..]
        }
        Some("kebab-case") => f.replace('_', "-"),
        Some("SCREAMING-KEBAB-CASE") => f.to_ascii_uppercase().replace('_', "-"),
        Some(r) => return Err(format!("unknown rename_all rule `{r}`")),
    })
}

struct Gen<'a> {
    /// The definition each name used stands for.
    defs: BTreeMap<String, &'a Def>,
    /// Which forms of each type are used.
    used: BTreeMap<String, BTreeSet<Mode>>,
    differs: std::cell::RefCell<BTreeMap<String, bool>>,
}

/// Types whose hand-written `Deserialize` also reads a string (the CLI's spelling of the value):
/// on input they are written `T | string`.
const INPUT_ALSO_STRING: &[&str] = &["Quantization"];

/// Types with a hand-written `Serialize` that writes a string (a preset's source, as its URL; a
/// component's key, as its kind's name).
const WRITTEN_AS_STRING: &[&str] = &["Source", "ComponentKey"];

const PRIMITIVE_NUMBERS: &[&str] = &[
    "u8", "u16", "u32", "u64", "usize", "i8", "i16", "i32", "i64", "isize", "f32", "f64",
];

impl<'a> Gen<'a> {
    /// Every type reached from the roots, in the forms it is reached in.
    fn new(
        all: &'a BTreeMap<String, Vec<Def>>,
        inputs: &[&str],
        outputs: &[&str],
    ) -> Result<Gen<'a>, String> {
        let mut g = Gen {
            defs: BTreeMap::new(),
            used: BTreeMap::new(),
            differs: Default::default(),
        };
        // (name, form, the file of the type that names it)
        let mut todo: Vec<(String, Mode, Option<String>)> = inputs
            .iter()
            .map(|r| (r.to_string(), Mode::Input, None))
            .chain(outputs.iter().map(|r| (r.to_string(), Mode::Output, None)))
            .collect();
        while let Some((name, mode, from)) = todo.pop() {
            let candidates = all
                .get(&name)
                .ok_or_else(|| format!("`{name}` is not a serde type of the sources read"))?;
            // A name defined in several modules means the one beside the type that uses it.
            let def = match candidates.as_slice() {
                [one] => one,
                many => many
                    .iter()
                    .find(|d| Some(&d.file) == from.as_ref())
                    .ok_or_else(|| format!("`{name}` is ambiguous: defined in several modules"))?,
            };
            match g.defs.get(&name) {
                Some(d) if !std::ptr::eq(*d, def) => {
                    return Err(format!(
                        "two different serde types called `{name}` are used ({} and {}): the TypeScript names would clash",
                        d.file, def.file
                    ));
                }
                _ => {
                    g.defs.insert(name.clone(), def);
                }
            }
            if !g.used.entry(name.clone()).or_default().insert(mode) {
                continue;
            }
            let mut refs = BTreeSet::new();
            for ty in def_types(def, mode) {
                type_refs(ty, &mut refs)?;
            }
            for r in refs {
                // A function's input type met inside an output (`ReadCommand`'s `input`) is
                // written as that input, which the value returned is, so that it passes on to
                // the function as it is.
                let m = if inputs.contains(&r.as_str()) {
                    Mode::Input
                } else {
                    mode
                };
                todo.push((r, m, Some(def.file.clone())));
            }
        }
        Ok(g)
    }

    /// Whether the input and output forms of `name` are written differently.
    fn differs(&self, name: &str) -> bool {
        if let Some(d) = self.differs.borrow().get(name) {
            return *d;
        }
        let d = self.body(name, Mode::Input) != self.body(name, Mode::Output);
        self.differs.borrow_mut().insert(name.to_string(), d);
        d
    }

    /// The TypeScript name of a type in a form.
    fn name(&self, name: &str, mode: Mode) -> String {
        let both = self.used.get(name).is_some_and(|m| m.len() == 2);
        if mode == Mode::Input && both && self.differs(name) {
            format!("{name}Input")
        } else {
            name.to_string()
        }
    }

    fn ts(&self, ty: &Type, mode: Mode) -> String {
        match ty {
            Type::Reference(r) => self.ts(&r.elem, mode),
            Type::Paren(p) => self.ts(&p.elem, mode),
            Type::Slice(s) => array(self.ts(&s.elem, mode)),
            Type::Array(a) => array(self.ts(&a.elem, mode)),
            Type::Tuple(t) if t.elems.is_empty() => "null".into(),
            Type::Tuple(t) => format!(
                "[{}]",
                t.elems
                    .iter()
                    .map(|e| self.ts(e, mode))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Type::Path(p) => {
                let seg = p.path.segments.last().expect("a path has a segment");
                let id = seg.ident.to_string();
                let args = generic_args(&seg.arguments);
                match id.as_str() {
                    "String" | "str" | "char" => "string".into(),
                    n if WRITTEN_AS_STRING.contains(&n) => "string".into(),
                    "bool" => "boolean".into(),
                    n if PRIMITIVE_NUMBERS.contains(&n) => "number".into(),
                    "Option" => format!("{} | null", self.ts(args[0], mode)),
                    "Vec" => array(self.ts(args[0], mode)),
                    "Box" | "Rc" | "Arc" | "Cow" => {
                        self.ts(args.last().expect("an argument"), mode)
                    }
                    "BTreeMap" | "HashMap" => {
                        format!("Record<string, {}>", self.ts(args[1], mode))
                    }
                    n if mode == Mode::Input && INPUT_ALSO_STRING.contains(&n) => {
                        format!("{} | string", self.name(n, mode))
                    }
                    _ => self.name(&id, mode),
                }
            }
            other => panic!("unsupported type {}", quote::quote!(#other)),
        }
    }

    /// The declaration's right-hand side (or interface body) for a form.
    fn body(&self, name: &str, mode: Mode) -> String {
        let def = self.defs[name];
        match &def.body {
            Body::Struct(Shape::Named(fields)) if def.attrs.transparent => {
                let f = fields
                    .iter()
                    .find(|f| !skipped(&f.attrs, mode))
                    .expect("a transparent struct has a field");
                format!("= {};", self.ts(&f.ty, mode))
            }
            Body::Struct(Shape::Tuple(t)) if t.len() == 1 => {
                format!("= {};", self.ts(&t[0], mode))
            }
            Body::Struct(Shape::Tuple(t)) => format!(
                "= [{}];",
                t.iter()
                    .map(|e| self.ts(e, mode))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Body::Struct(Shape::Unit) => "= null;".into(),
            Body::Struct(Shape::Named(fields)) => {
                format!("{{\n{}}}", self.fields(def, fields, mode, "  "))
            }
            Body::Enum(variants) => {
                let mut out = String::from("=\n");
                for v in variants {
                    if skipped(&v.attrs, mode) {
                        continue;
                    }
                    let wire = match &v.attrs.rename {
                        Some(r) => r.clone(),
                        None => rename_variant(def.attrs.rename_all.as_deref(), &v.name)
                            .expect("a known rename rule"),
                    };
                    out.push_str(&doc_block(&v.docs, "  "));
                    let lit = format!("{wire:?}");
                    let member = match (&def.attrs.tag, &v.shape) {
                        (None, Shape::Unit) => lit,
                        (None, Shape::Tuple(t)) if t.len() == 1 => {
                            format!("{{ {lit}: {} }}", self.ts(&t[0], mode))
                        }
                        (None, Shape::Named(f)) => {
                            format!("{{ {lit}: {{\n{}  }} }}", self.fields(def, f, mode, "    "))
                        }
                        (Some(tag), Shape::Unit) => format!("{{ {tag}: {lit} }}"),
                        (Some(tag), Shape::Tuple(t)) if t.len() == 1 => {
                            format!("({{ {tag}: {lit} }} & {})", self.ts(&t[0], mode))
                        }
                        (Some(tag), Shape::Named(f)) => {
                            format!(
                                "{{\n    {tag}: {lit};\n{}  }}",
                                self.fields(def, f, mode, "    ")
                            )
                        }
                        _ => panic!("{name}::{}: a variant of several unnamed fields", v.name),
                    };
                    out.push_str(&format!("  | {member}\n"));
                }
                out.push(';');
                out
            }
        }
    }

    fn fields(&self, def: &Def, fields: &[Field], mode: Mode, indent: &str) -> String {
        let mut out = String::new();
        for f in fields {
            if skipped(&f.attrs, mode) {
                continue;
            }
            let wire = match &f.attrs.rename {
                Some(r) => r.clone(),
                None => match &def.body {
                    Body::Struct(_) => rename_field(def.attrs.rename_all.as_deref(), &f.name)
                        .expect("a known rename rule"),
                    // An enum's rename_all renames its variants, not their fields.
                    Body::Enum(_) => f.name.clone(),
                },
            };
            let optional = match mode {
                Mode::Input => def.attrs.default || f.attrs.default,
                Mode::Output => f.attrs.skip_serializing_if,
            };
            let mut ty = self.ts(&f.ty, mode);
            if mode == Mode::Output && f.attrs.skip_serializing_if {
                // Skipped when `None`, so never `null`.
                ty = ty.trim_end_matches(" | null").to_string();
            }
            out.push_str(&doc_block(&f.docs, indent));
            out.push_str(&format!(
                "{indent}{}{}: {ty};\n",
                ident_or_quoted(&wire),
                if optional { "?" } else { "" }
            ));
        }
        out
    }

    fn render(&self) -> String {
        let mut out = String::from(HEADER);
        for (name, modes) in &self.used {
            let def = self.defs[name];
            let forms: Vec<Mode> = if modes.len() == 2 && self.differs(name) {
                vec![Mode::Output, Mode::Input]
            } else {
                vec![*modes.iter().next().expect("a form")]
            };
            for mode in forms {
                out.push('\n');
                let mut docs = def.docs.clone();
                if self.name(name, mode) != *name {
                    docs.push(String::new());
                    docs.push(format!(
                        "The input form of `{name}`: fields with a default may be left out."
                    ));
                }
                out.push_str(&doc_block(&docs, ""));
                let body = self.body(name, mode);
                let ts_name = self.name(name, mode);
                if body.starts_with('{') {
                    out.push_str(&format!("export interface {ts_name} {body}\n"));
                } else {
                    out.push_str(&format!("export type {ts_name} {body}\n"));
                }
            }
        }
        out
    }
}

const HEADER: &str = "\
// Generated by crates/vramfit-wasm/tests/dts.rs from the serde types of vramfit and
// vramfit-wasm. Do not edit: change the Rust types and run `cargo test -p vramfit-wasm --test dts`.
//
// Data keeps the serde names (snake_case). Sizes are numbers of bytes.
";

fn skipped(a: &SerdeAttrs, mode: Mode) -> bool {
    match mode {
        Mode::Input => a.skip_deserializing,
        Mode::Output => a.skip_serializing,
    }
}

fn array(inner: String) -> String {
    if inner.contains(" | ") || inner.contains(" & ") {
        format!("({inner})[]")
    } else {
        format!("{inner}[]")
    }
}

fn ident_or_quoted(s: &str) -> String {
    let ok = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
        && !s.starts_with(|c: char| c.is_ascii_digit());
    if ok { s.to_string() } else { format!("{s:?}") }
}

fn doc_block(docs: &[String], indent: &str) -> String {
    if docs.last().is_some_and(|l| l.is_empty()) {
        return doc_block(&docs[..docs.len() - 1], indent);
    }
    if docs.is_empty() {
        return String::new();
    }
    let mut out = format!("{indent}/**\n");
    for l in docs {
        // Rust's intra-doc links read as plain code in TypeScript.
        let l = l
            .replace("*/", "*\\/")
            .replace("[`", "`")
            .replace("`]", "`");
        if l.is_empty() {
            out.push_str(&format!("{indent} *\n"));
        } else {
            out.push_str(&format!("{indent} * {l}\n"));
        }
    }
    out.push_str(&format!("{indent} */\n"));
    out
}

fn generic_args(args: &PathArguments) -> Vec<&Type> {
    match args {
        PathArguments::AngleBracketed(a) => a
            .args
            .iter()
            .filter_map(|g| match g {
                GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The field types of a definition in a form.
fn def_types(def: &Def, mode: Mode) -> Vec<&Type> {
    fn shape_types(s: &Shape, mode: Mode) -> Vec<&Type> {
        match s {
            Shape::Unit => Vec::new(),
            Shape::Tuple(t) => t.iter().collect(),
            Shape::Named(f) => f
                .iter()
                .filter(|f| !skipped(&f.attrs, mode))
                .map(|f| &f.ty)
                .collect(),
        }
    }
    let mut out = Vec::new();
    match &def.body {
        Body::Struct(s) => out.extend(shape_types(s, mode)),
        Body::Enum(vs) => {
            for v in vs.iter().filter(|v| !skipped(&v.attrs, mode)) {
                out.extend(shape_types(&v.shape, mode));
            }
        }
    }
    out
}

/// The names of the non-primitive types `ty` refers to.
fn type_refs(ty: &Type, out: &mut BTreeSet<String>) -> Result<(), String> {
    match ty {
        Type::Reference(r) => type_refs(&r.elem, out),
        Type::Paren(p) => type_refs(&p.elem, out),
        Type::Slice(s) => type_refs(&s.elem, out),
        Type::Array(a) => type_refs(&a.elem, out),
        Type::Tuple(t) => t.elems.iter().try_for_each(|e| type_refs(e, out)),
        Type::Path(p) => {
            let seg = p.path.segments.last().expect("a path has a segment");
            let id = seg.ident.to_string();
            match id.as_str() {
                "String" | "str" | "char" | "bool" => Ok(()),
                n if PRIMITIVE_NUMBERS.contains(&n) || WRITTEN_AS_STRING.contains(&n) => Ok(()),
                "Option" | "Vec" | "Box" | "Rc" | "Arc" | "Cow" | "BTreeMap" | "HashMap" => {
                    generic_args(&seg.arguments)
                        .into_iter()
                        .try_for_each(|t| type_refs(t, out))
                }
                _ => {
                    out.insert(id);
                    Ok(())
                }
            }
        }
        other => Err(format!("unsupported type {}", quote::quote!(#other))),
    }
}

fn rust_sources(dir: &Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_sources(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&p).unwrap();
            out.push((p.display().to_string(), text));
        }
    }
}

/// The TypeScript of the package's data types.
fn generate() -> Result<String, String> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut sources = Vec::new();
    rust_sources(&here.join("../vramfit/src"), &mut sources);
    rust_sources(&here.join("src"), &mut sources);
    let defs = collect(&sources)?;
    Ok(Gen::new(&defs, INPUT_ROOTS, OUTPUT_ROOTS)?.render())
}

#[test]
fn generated_types_are_fresh() {
    let ts = generate().unwrap_or_else(|e| panic!("{e}"));
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("ts/types.d.ts");
    let old = std::fs::read_to_string(&path).unwrap_or_default();
    if old != ts {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &ts).unwrap();
        panic!(
            "{} was stale and has been rewritten: rebuild the package and commit it",
            path.display()
        );
    }
}

/// The fields of `EstimateInput` (test code shared by every face's check).
#[path = "../../../tests/input_fields.rs"]
mod input_fields;

/// The package's `EstimateInput` type (the committed `ts/types.d.ts`, which
/// `generated_types_are_fresh` keeps current) has every field of the Rust `EstimateInput`, and
/// no other: nothing is left out of the npm face.
#[test]
fn the_typescript_estimate_input_has_every_field() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("ts/types.d.ts");
    let ts = std::fs::read_to_string(&path).unwrap();
    let body = ts
        .split_once("export interface EstimateInput {\n")
        .and_then(|(_, rest)| rest.split_once("\n}\n"))
        .map(|(body, _)| body)
        .expect("an `EstimateInput` interface in types.d.ts");
    // Its members, one a line at two spaces' indent (`  seq_len?: number;`), docs between.
    let mut members: Vec<&str> = body
        .lines()
        .filter_map(|l| l.strip_prefix("  "))
        .filter(|l| !l.starts_with([' ', '/', '*']))
        .filter_map(|l| {
            l.split_once(':')
                .map(|(name, _)| name.trim_end_matches('?'))
        })
        .collect();
    let mut fields = input_fields::input_fields().to_vec();
    members.sort_unstable();
    fields.sort_unstable();
    assert_eq!(members, fields, "{}", path.display());
}

// ---- the generator's own tests, on small sources written here ------------------------------

fn gen_for(src: &str, inputs: &[&str], outputs: &[&str]) -> String {
    let defs = collect(&[("test.rs".into(), src.into())]).unwrap();
    let g = Gen::new(&defs, inputs, outputs).unwrap();
    g.render()[HEADER.len()..].to_string()
}

#[test]
fn renames_variants_as_serde_does() {
    let r = |rule, v| rename_variant(Some(rule), v).unwrap();
    assert_eq!(r("snake_case", "AmpBf16"), "amp_bf16");
    assert_eq!(r("kebab-case", "AmpBf16"), "amp-bf16");
    assert_eq!(r("kebab-case", "BnbNf4"), "bnb-nf4");
    assert_eq!(r("snake_case", "Q8_0"), "q8_0");
    assert_eq!(r("lowercase", "Llamacpp"), "llamacpp");
    assert_eq!(r("UPPERCASE", "Q4_K"), "Q4_K");
    assert_eq!(r("camelCase", "ForwardLoss"), "forwardLoss");
    assert_eq!(
        rename_field(Some("camelCase"), "seq_len").unwrap(),
        "seqLen"
    );
}

#[test]
fn a_wire_form_takes_the_field_docs_of_its_plain_namesake() {
    let src = r#"
        /// A card.
        pub struct Card {
            /// Its id.
            pub id: &'static str,
            /// Its memory.
            pub memory: u64,
        }

        mod wire {
            /// A card.
            #[derive(Serialize)]
            pub struct Card {
                pub id: &'static str,
                /// Said here.
                #[serde(rename = "memory_bytes")]
                pub memory: u64,
                pub source: &'static str,
            }
        }
    "#;
    let ts = gen_for(src, &[], &["Card"]);
    assert!(ts.contains("   * Its id.\n   */\n  id: string;"), "{ts}");
    assert!(
        ts.contains("   * Said here.\n   */\n  memory_bytes: number;"),
        "{ts}"
    );
    // No namesake field: no docs.
    assert!(ts.contains("  source: string;"), "{ts}");
    assert!(!ts.contains("*/\n  source: string;"), "{ts}");
}

/// The core's `input_sections!` invocation is read as the section structs it writes, each
/// optional on input (`#[serde(default)]`) and flattened in place.
#[test]
fn reads_the_input_sections_macro_as_its_structs() {
    let src = r#"
        /// The input.
        #[derive(Serialize)]
        pub struct Input {
            #[serde(flatten)]
            pub run: RunSection,
        }

        super::input_wire::input_sections! {
            /// How it is run.
            run => pub struct RunSection {
                /// Sequences per batch.
                pub batch: f64 = 1.0,
                /// The engine's release.
                pub engine_version: Option<String> = None,
            }
        }
    "#;
    let ts = gen_for(src, &["Input"], &[]);
    assert!(
        ts.contains("   * Sequences per batch.\n   */\n  batch?: number;"),
        "{ts}"
    );
    assert!(ts.contains("  engine_version?: string | null;"), "{ts}");
    assert!(!ts.contains("run"), "{ts}");
}

#[test]
fn writes_structs_enums_and_options() {
    let src = r#"
        /// A size.
        #[derive(Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct Bytes(u64);

        #[derive(Serialize)]
        #[serde(rename_all = "kebab-case")]
        pub enum Kind {
            /// One.
            OneThing,
            #[serde(rename = "X")]
            Other,
        }

        /// Out.
        #[cfg_attr(feature = "serde", derive(serde::Serialize))]
        pub struct Out {
            /// The size.
            pub size: Bytes,
            #[cfg_attr(feature = "serde", serde(rename = "kind_name"))]
            pub kind: Kind,
            pub maybe: Option<u32>,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub skipped: Option<String>,
            pub list: &'static [&'static str],
            pub pairs: Vec<(String, String)>,
            pub opt_list: Vec<Option<u8>>,
        }
    "#;
    let ts = gen_for(src, &[], &["Out"]);
    assert_eq!(
        ts,
        r#"
/**
 * A size.
 */
export type Bytes = number;

export type Kind =
  /**
   * One.
   */
  | "one-thing"
  | "X"
;

/**
 * Out.
 */
export interface Out {
  /**
   * The size.
   */
  size: Bytes;
  kind_name: Kind;
  maybe: number | null;
  skipped?: string;
  list: string[];
  pairs: [string, string][];
  opt_list: (number | null)[];
}
"#
    );
}

#[test]
fn writes_tagged_enums_and_input_forms() {
    let src = r#"
        #[derive(Serialize, Deserialize)]
        #[serde(tag = "format", rename_all = "kebab-case")]
        pub enum Quant {
            None,
            Gptq { bits: u8, group_size: u32 },
            Wrapped(Inner),
        }

        #[derive(Serialize, Deserialize)]
        pub struct Inner { pub x: f64 }

        #[derive(Serialize, Deserialize)]
        #[serde(default)]
        pub struct Arch { pub layers: u64, pub q: Quant }

        #[derive(Deserialize)]
        #[serde(default, deny_unknown_fields)]
        pub struct In { pub arch: Option<Arch>, pub name: String }

        #[derive(Serialize)]
        pub struct Res { pub arch: Arch }
    "#;
    let ts = gen_for(src, &["In"], &["Res"]);
    assert!(
        ts.contains("export interface Arch {\n  layers: number;\n  q: Quant;\n}"),
        "{ts}"
    );
    assert!(
        ts.contains("export interface ArchInput {\n  layers?: number;\n  q?: Quant;\n}"),
        "{ts}"
    );
    assert!(
        ts.contains("export interface In {\n  arch?: ArchInput | null;\n  name?: string;\n}"),
        "{ts}"
    );
    // Quant reads the same both ways: written once.
    assert_eq!(ts.matches("export type Quant").count(), 1, "{ts}");
    assert!(ts.contains("  | { format: \"none\" }\n"), "{ts}");
    assert!(
        ts.contains(
            "  | {\n    format: \"gptq\";\n    bits: number;\n    group_size: number;\n  }\n"
        ),
        "{ts}"
    );
    assert!(
        ts.contains("  | ({ format: \"wrapped\" } & Inner)\n"),
        "{ts}"
    );
}

#[test]
fn refuses_what_it_does_not_understand() {
    let src = r#"
        #[derive(Serialize)]
        pub struct S { #[serde(flatten)] pub x: T }
    "#;
    let Err(e) = collect(&[("test.rs".into(), src.into())]) else {
        panic!("flatten was accepted")
    };
    assert!(e.contains("flatten"), "{e}");
}
