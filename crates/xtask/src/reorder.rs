//! Puts a wasm module's functions in an order that compresses better. Nothing else changes:
//! every function's code is the same, and every index that names a function is renumbered to
//! match, so the module runs as before.
//!
//! Deflate finds repeats only within the last 32 KiB, and the order rustc and binaryen leave
//! puts a function far from its look-alikes (Yew's code for one component beside the
//! estimator's, the same generic code for two types a module apart). The order is greedy: start
//! from the largest function; then, again and again, take the one not yet placed that has the
//! largest share of its distinct 4-byte strings among those of the last [`WINDOW`] functions
//! placed (ties: the lower index). It is deterministic, so a build is reproducible. What it
//! saves is in the book's performance chapter.
//!
//! wasmparser reads the module and wasm-encoder writes it again, renumbering through
//! `Reencode::function_index` every place a function's index appears (calls, `ref.func`,
//! element segments, exports, the start function, names).

use std::collections::HashMap;

use wasm_encoder::reencode::{Error as ReencodeError, Reencode};
use wasmparser::{Parser, Payload, TypeRef};

/// How many of the last functions placed the next one is compared with (the best of 4, 12, 24
/// and 48 on the site's module).
pub const WINDOW: usize = 12;

/// `wasm` with its functions in the order of [`order`]; an error if wasm cannot be read.
pub fn reorder(wasm: &[u8]) -> Result<Vec<u8>, String> {
    let scan = scan(wasm)?;
    let order = order(&scan.bodies);
    write(wasm, &scan, &order)
}

/// What the reordering reads of a module before writing it again, in one pass.
struct Scan<'a> {
    /// Imported functions, which come first in the index space and keep their indices.
    imported: u32,
    /// The function section's count of defined functions.
    defined: usize,
    /// Each defined function's body, locals included.
    bodies: Vec<&'a [u8]>,
}

fn scan(wasm: &[u8]) -> Result<Scan<'_>, String> {
    let mut scan = Scan {
        imported: 0,
        defined: 0,
        bodies: Vec::new(),
    };
    for payload in Parser::new(0).parse_all(wasm) {
        match payload.map_err(|e| e.to_string())? {
            Payload::ImportSection(imports) => {
                for import in imports.into_imports() {
                    if let TypeRef::Func(_) | TypeRef::FuncExact(_) =
                        import.map_err(|e| e.to_string())?.ty
                    {
                        scan.imported += 1;
                    }
                }
            }
            Payload::FunctionSection(reader) => scan.defined = reader.count() as usize,
            Payload::CodeSectionEntry(body) => scan.bodies.push(body.as_bytes()),
            _ => {}
        }
    }
    Ok(scan)
}

/// `order`'s inverse, checked to be a permutation of `0..n`.
fn inverse(order: &[usize], n: usize) -> Result<Vec<u32>, String> {
    if order.len() != n {
        return Err(format!(
            "the module has {n} functions, the order names {}",
            order.len()
        ));
    }
    let mut new_of_old = vec![u32::MAX; n];
    for (new, &old) in order.iter().enumerate() {
        match new_of_old.get_mut(old) {
            Some(slot) if *slot == u32::MAX => *slot = new as u32,
            _ => {
                return Err(format!(
                    "the order names function {old} twice or out of range"
                ));
            }
        }
    }
    Ok(new_of_old)
}

/// The module (read as `scan`) with its defined functions in `order` (`order[k]`: the index,
/// among the defined functions, of the one that goes `k`th; imported functions keep their
/// indices).
fn write(wasm: &[u8], scan: &Scan, order: &[usize]) -> Result<Vec<u8>, String> {
    let mut reorder = Reorder {
        imported: scan.imported,
        new_of_old: inverse(order, scan.defined)?,
        order: order.to_vec(),
    };
    let mut module = wasm_encoder::Module::new();
    reorder
        .parse_core_module(&mut module, Parser::new(0), wasm)
        .map_err(|e| match e {
            ReencodeError::UserError(e) => e,
            e => e.to_string(),
        })?;
    Ok(module.finish())
}

/// `items[k]`, or the error that a section holds fewer items than its count said.
fn item<T>(items: &[T], k: usize) -> Result<&T, ReencodeError<String>> {
    items.get(k).ok_or_else(|| {
        ReencodeError::UserError(format!(
            "a section of the module holds no item {k}, which its count promised"
        ))
    })
}

struct Reorder {
    imported: u32,
    new_of_old: Vec<u32>,
    order: Vec<usize>,
}

impl Reorder {
    /// The function section's or the code section's items (one per defined function), in the
    /// new order.
    fn in_order<T: Clone>(&self, items: Vec<T>) -> Result<Vec<T>, ReencodeError<String>> {
        self.order
            .iter()
            .map(|&old| item(&items, old).cloned())
            .collect()
    }
}

impl Reencode for Reorder {
    type Error = String;

    fn function_index(&mut self, func: u32) -> Result<u32, ReencodeError<String>> {
        if func < self.imported {
            return Ok(func);
        }
        match self.new_of_old.get((func - self.imported) as usize) {
            Some(&new) => Ok(self.imported + new),
            None => Err(ReencodeError::UserError(format!(
                "function index {func} is out of range"
            ))),
        }
    }

    fn parse_function_section(
        &mut self,
        functions: &mut wasm_encoder::FunctionSection,
        section: wasmparser::FunctionSectionReader<'_>,
    ) -> Result<(), ReencodeError<String>> {
        for ty in self.in_order(section.into_iter().collect::<Result<_, _>>()?)? {
            functions.function(self.type_index(ty)?);
        }
        Ok(())
    }

    fn parse_code_section(
        &mut self,
        code: &mut wasm_encoder::CodeSection,
        section: wasmparser::CodeSectionReader<'_>,
    ) -> Result<(), ReencodeError<String>> {
        for body in self.in_order(section.into_iter().collect::<Result<_, _>>()?)? {
            self.parse_function_body(code, body)?;
        }
        Ok(())
    }
}

/// The order of `bodies` (the bytes of each defined function's body, locals included) that the
/// module is written in; see the module's doc.
pub fn order(bodies: &[&[u8]]) -> Vec<usize> {
    let n = bodies.len();
    if n == 0 {
        return Vec::new();
    }
    // Each body's distinct 4-byte strings, and for each string the bodies that have it.
    let grams: Vec<Vec<u32>> = bodies
        .iter()
        .map(|b| {
            let mut g: Vec<u32> = b
                .windows(4)
                .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
                .collect();
            g.sort_unstable();
            g.dedup();
            g
        })
        .collect();
    let mut holders: HashMap<u32, Vec<u32>> = HashMap::new();
    for (j, g) in grams.iter().enumerate() {
        for &s in g {
            holders.entry(s).or_default().push(j as u32);
        }
    }
    // `shared[j]`: how many of body j's strings some body in the window has; `seen[s]`: how
    // many bodies in the window have string s.
    let mut shared = vec![0u64; n];
    let mut seen: HashMap<u32, u32> = HashMap::new();
    let mut placed = vec![false; n];
    let mut order = Vec::with_capacity(n);
    let enter = |f: usize, shared: &mut Vec<u64>, seen: &mut HashMap<u32, u32>, by: i32| {
        for s in &grams[f] {
            let count = seen.entry(*s).or_default();
            let before = *count;
            *count = count.wrapping_add_signed(by);
            if (before == 0) != (*count == 0) {
                for &j in &holders[s] {
                    shared[j as usize] = shared[j as usize].wrapping_add_signed(by as i64);
                }
            }
        }
    };
    let mut next = (0..n)
        .max_by_key(|&j| (bodies[j].len(), std::cmp::Reverse(j)))
        .unwrap_or(0);
    loop {
        placed[next] = true;
        order.push(next);
        if order.len() == n {
            return order;
        }
        enter(next, &mut shared, &mut seen, 1);
        if order.len() > WINDOW {
            enter(order[order.len() - 1 - WINDOW], &mut shared, &mut seen, -1);
        }
        // The largest shared / (distinct + 1), compared as integers; the first such wins ties.
        let mut best: Option<usize> = None;
        for j in (0..n).filter(|&j| !placed[j]) {
            let better = best.is_none_or(|b| {
                shared[j] * (grams[b].len() as u64 + 1) > shared[b] * (grams[j].len() as u64 + 1)
            });
            if better {
                best = Some(j);
            }
        }
        next = best.unwrap_or(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use wasm_encoder::{
        CodeSection, ConstExpr, ElementSection, Elements, EntityType, ExportKind, ExportSection,
        Function, FunctionSection, ImportSection, Module, RefType, TableSection, TableType,
        TypeSection, ValType,
    };

    /// The module with its functions in `order`.
    fn reencode(wasm: &[u8], order: &[usize]) -> Result<Vec<u8>, String> {
        write(wasm, &scan(wasm)?, order)
    }

    /// Three functions after one import: `a` calls `c` and the import, `b` returns 7, `c`
    /// returns 9; all three exported, `c` also in a table.
    fn module() -> Vec<u8> {
        let mut m = Module::new();
        let mut types = TypeSection::new();
        types.ty().function([], [ValType::I32]);
        m.section(&types);
        let mut imports = ImportSection::new();
        imports.import("env", "f", EntityType::Function(0));
        m.section(&imports);
        let mut funcs = FunctionSection::new();
        for _ in 0..3 {
            funcs.function(0);
        }
        m.section(&funcs);
        let mut tables = TableSection::new();
        tables.table(TableType {
            element_type: RefType::FUNCREF,
            minimum: 1,
            maximum: Some(1),
            table64: false,
            shared: false,
        });
        m.section(&tables);
        let mut exports = ExportSection::new();
        for (name, index) in [("a", 1), ("b", 2), ("c", 3)] {
            exports.export(name, ExportKind::Func, index);
        }
        m.section(&exports);
        let mut elements = ElementSection::new();
        elements.active(
            Some(0),
            &ConstExpr::i32_const(0),
            Elements::Functions([3].as_slice().into()),
        );
        m.section(&elements);
        let mut code = CodeSection::new();
        let mut a = Function::new([]);
        a.instructions().call(3).call(0).i32_add().end();
        code.function(&a);
        for k in [7, 9] {
            let mut f = Function::new([]);
            f.instructions().i32_const(k).end();
            code.function(&f);
        }
        m.section(&code);
        m.finish()
    }

    fn exports(wasm: &[u8]) -> Vec<(String, u32)> {
        let mut out = Vec::new();
        for p in Parser::new(0).parse_all(wasm) {
            if let Payload::ExportSection(r) = p.unwrap() {
                for e in r {
                    let e = e.unwrap();
                    out.push((e.name.to_string(), e.index));
                }
            }
        }
        out
    }

    fn code(wasm: &[u8]) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        for p in Parser::new(0).parse_all(wasm) {
            if let Payload::CodeSectionEntry(b) = p.unwrap() {
                out.push(b.as_bytes().to_vec());
            }
        }
        out
    }

    #[test]
    fn the_same_order_writes_the_same_bytes() {
        let m = module();
        assert_eq!(reencode(&m, &[0, 1, 2]).unwrap(), m);
    }

    #[test]
    fn every_index_follows_its_function() {
        // c, a, b: c becomes function 1 (after the import), a 2, b 3.
        let m = reencode(&module(), &[2, 0, 1]).unwrap();
        wasmparser::Validator::new().validate_all(&m).unwrap();
        let want = [("a", 2), ("b", 3), ("c", 1)].map(|(n, i)| (n.to_string(), i));
        assert_eq!(exports(&m), want);
        // Bodies by hand: c (i32.const 9), a (call 1, call 0, i32.add), b (i32.const 7); each
        // starts with its locals' count, 0, and ends with `end`, 0x0b.
        let bodies = code(&m);
        assert_eq!(bodies[0], [0, 0x41, 9, 0x0b]);
        assert_eq!(bodies[1], [0, 0x10, 1, 0x10, 0, 0x6a, 0x0b]);
        assert_eq!(bodies[2], [0, 0x41, 7, 0x0b]);
        // The table's one entry is c, now function 1.
        let mut entries = Vec::new();
        for p in Parser::new(0).parse_all(&m) {
            if let Payload::ElementSection(r) = p.unwrap() {
                for e in r {
                    if let wasmparser::ElementItems::Functions(f) = e.unwrap().items {
                        entries.extend(f.into_iter().map(|x| x.unwrap()));
                    }
                }
            }
        }
        assert_eq!(entries, [1]);
    }

    #[test]
    fn an_order_that_is_not_a_permutation_is_refused() {
        assert!(reencode(&module(), &[0, 0, 1]).is_err());
        assert!(reencode(&module(), &[0, 1]).is_err());
        assert!(reencode(&module(), &[0, 1, 3]).is_err());
    }

    #[test]
    fn look_alikes_are_placed_together() {
        // Two families of bodies, interleaved: each body shares most of its strings with the
        // other of its family and none with the other family.
        let x1: &[u8] = b"ABCDEFGHIJKLMNOP1";
        let y1: &[u8] = b"qrstuvwxyz0123452";
        let x2: &[u8] = b"ABCDEFGHIJKLMNOP3";
        let y2: &[u8] = b"qrstuvwxyz0123454";
        assert_eq!(order(&[x1, y1, x2, y2]), [0, 2, 1, 3]);
        // With nothing shared, the original order stays, after the largest body.
        assert_eq!(order(&[b"aaaa", b"bbbb", b"cccc"]), [0, 1, 2]);
        assert_eq!(order(&[b"aaaa", b"bbbbbbbb", b"cccc"]), [1, 0, 2]);
        assert_eq!(order(&[]), Vec::<usize>::new());
    }
}
