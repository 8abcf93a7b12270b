//! Puts a wasm module's functions and data segments in an order that compresses better.
//! Nothing else changes: every function's code and every segment's bytes and address are the
//! same, and every index that names a function or a segment is renumbered to match, so the
//! module runs as before.
//!
//! Deflate finds repeats only within the last 32 KiB, and the order rustc and binaryen leave
//! puts a function far from its look-alikes (Yew's code for one component beside the
//! estimator's, the same generic code for two types a module apart). Measured on 2026-12-02,
//! on the English calculator's module, as downloaded (Zopfli): the functions' order took
//! 3.1 KB off, the data segments' joining and order 1.1 KB more (123.7 → 119.5 KB with a few
//! bytes of text moved out); see `cargo xtask size` and the book's performance chapter for
//! every module.
//!
//! - **Functions:** greedy. Start from the largest; then, again and again, take the one not yet
//!   placed that has the largest share of its distinct 4-byte strings among those of the last
//!   [`WINDOW`] functions placed (ties: the lower index).
//! - **Data segments:** joined, then ordered by size. binaryen splits the data at every run of
//!   zeros longer than a segment's header (`--memory-packing`, in `-Oz`), which makes the module
//!   smaller raw but breaks tables of numbers and pointers apart; runs of up to [`JOIN_GAP`]
//!   zeros are written out again, joining their neighbours into one segment (memory starts
//!   zeroed, so the bytes copied are the same). What remains goes smallest first (ties: by
//!   address). Only where every segment is active at a constant address, none overlaps another
//!   and the module defines its memory rather than importing it (an imported one may hold other
//!   bytes in the gaps); otherwise the segments are kept as they are. Measured 2026-12-02, as
//!   downloaded: joining took 0.7 KB off the English module (its 344 segments became one), 0.1
//!   KB off the Chinese, 0.9 KB off the full build's and 1.0 KB off the npm package's, for 4 to
//!   5 % more bytes raw, zeros that a server's gzip sends nearly free; ordering by size alone
//!   had taken 0.4 KB off the English module.
//!
//! Both orders are deterministic, so a build is reproducible. wasmparser reads the module and
//! wasm-encoder writes it again, renumbering through `Reencode::function_index` and
//! `Reencode::data_index` every place an index appears (calls, `ref.func`, element segments,
//! exports, the start function, `memory.init`, `data.drop`, names; an index of a segment that
//! was joined names the joined one, which like every active segment is dropped once copied).

use std::collections::HashMap;

use wasm_encoder::reencode::{Error as ReencodeError, Reencode};
use wasmparser::{DataKind, Operator, Parser, Payload, TypeRef};

/// How many of the last functions placed the next one is compared with. Measured on
/// 2026-12-02 (gzip -9 of the English calculator's code): 4 → 99.5 KB, 12 → 99.3 KB,
/// 24 → 99.5 KB, 48 → 99.4 KB, from 101.8 KB in the original order. Starting from the largest
/// function rather than the first took a further 0.2 KB off the English module as downloaded,
/// 0.5 KB off the Chinese one and 0.2 KB off the npm package's; 0.07 KB onto the full build's.
pub const WINDOW: usize = 12;

/// The longest run of zeros between two data segments that is written out to join them: more
/// than any in the site's and the npm package's modules (141 bytes at most, 2026-12-02), so
/// that each has one segment.
pub const JOIN_GAP: u64 = 1024;

/// `wasm` with its functions in the order of [`order`] and its data segments as
/// [`data_plan`] says; an error if wasm cannot be read.
pub fn reorder(wasm: &[u8]) -> Result<Vec<u8>, String> {
    let scan = scan(wasm)?;
    let order = order(&scan.bodies);
    let data = data_plan(&scan.segments, scan.memory_imported);
    write(wasm, &scan, &order, &data)
}

/// What the reordering reads of a module before writing it again, in one pass.
struct Scan<'a> {
    /// Imported functions, which come first in the index space and keep their indices.
    imported: u32,
    /// Whether the memory is imported rather than defined.
    memory_imported: bool,
    /// The function section's count of defined functions.
    defined: usize,
    /// Each defined function's body, locals included.
    bodies: Vec<&'a [u8]>,
    /// Each data segment's (address, length), if active at a constant address.
    segments: Vec<Option<(u64, u64)>>,
}

fn scan(wasm: &[u8]) -> Result<Scan<'_>, String> {
    let mut scan = Scan {
        imported: 0,
        memory_imported: false,
        defined: 0,
        bodies: Vec::new(),
        segments: Vec::new(),
    };
    for payload in Parser::new(0).parse_all(wasm) {
        match payload.map_err(|e| e.to_string())? {
            Payload::ImportSection(imports) => {
                for import in imports.into_imports() {
                    match import.map_err(|e| e.to_string())?.ty {
                        TypeRef::Func(_) | TypeRef::FuncExact(_) => scan.imported += 1,
                        TypeRef::Memory(_) => scan.memory_imported = true,
                        _ => {}
                    }
                }
            }
            Payload::FunctionSection(reader) => scan.defined = reader.count() as usize,
            Payload::CodeSectionEntry(body) => scan.bodies.push(body.as_bytes()),
            Payload::DataSection(reader) => {
                for data in reader {
                    let data = data.map_err(|e| e.to_string())?;
                    let placed = placed_at(&data).map(|at| (at, data.data.len() as u64));
                    scan.segments.push(placed);
                }
            }
            _ => {}
        }
    }
    Ok(scan)
}

/// Where an active segment of memory 0 is copied to, if at a constant 32-bit address.
fn placed_at(data: &wasmparser::Data<'_>) -> Option<u64> {
    let DataKind::Active {
        memory_index: 0,
        offset_expr,
    } = &data.kind
    else {
        return None;
    };
    let mut ops = offset_expr.get_operators_reader();
    let Operator::I32Const { value } = ops.read().ok()? else {
        return None;
    };
    let at = u64::from(value as u32);
    matches!(ops.read().ok()?, Operator::End).then_some(at)
}

/// The data segments as they are written, from each one's (address, length) where it is an
/// active segment at a constant address (`None` otherwise): groups of the segments' indices,
/// each group written as one segment, in the order written. If every segment is such, none
/// overlaps another and the memory is not imported: neighbours at most [`JOIN_GAP`] bytes apart
/// joined (by address), then the groups by the bytes they span, smallest first. Otherwise
/// every segment alone, in its place.
pub fn data_plan(segments: &[Option<(u64, u64)>], memory_imported: bool) -> Vec<Vec<usize>> {
    let alone = (0..segments.len()).map(|k| vec![k]).collect();
    let Some(placed) = segments.iter().copied().collect::<Option<Vec<_>>>() else {
        return alone;
    };
    if memory_imported {
        return alone;
    }
    let mut by_address: Vec<usize> = (0..placed.len()).collect();
    by_address.sort_by_key(|&k| placed[k]);
    let end = |k: usize| placed[k].0.saturating_add(placed[k].1);
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for &k in &by_address {
        match groups.last_mut() {
            Some(g) if end(g[g.len() - 1]) > placed[k].0 => return alone,
            Some(g) if placed[k].0 - end(g[g.len() - 1]) <= JOIN_GAP => g.push(k),
            _ => groups.push(vec![k]),
        }
    }
    groups.sort_by_key(|g| end(g[g.len() - 1]) - placed[g[0]].0);
    groups
}

/// For each data segment, the group of `groups` it is written in; an error unless each of
/// `0..n` is in exactly one group.
fn group_of(groups: &[Vec<usize>], n: usize) -> Result<Vec<u32>, String> {
    let order: Vec<usize> = groups.iter().flatten().copied().collect();
    inverse(&order, n, "data segment")?;
    let mut group = vec![0; n];
    for (g, members) in groups.iter().enumerate() {
        for &k in members {
            group[k] = g as u32;
        }
    }
    Ok(group)
}

/// `order`'s inverse, checked to be a permutation of `0..n`; `what` names the items for the
/// error.
fn inverse(order: &[usize], n: usize, what: &str) -> Result<Vec<u32>, String> {
    if order.len() != n {
        return Err(format!(
            "the module has {n} {what}s, the order names {}",
            order.len()
        ));
    }
    let mut new_of_old = vec![u32::MAX; n];
    for (new, &old) in order.iter().enumerate() {
        match new_of_old.get_mut(old) {
            Some(slot) if *slot == u32::MAX => *slot = new as u32,
            _ => {
                return Err(format!(
                    "the order names {what} {old} twice or out of range"
                ));
            }
        }
    }
    Ok(new_of_old)
}

/// The module (read as `scan`) with its defined functions in `order` (`order[k]`: the index, among the defined
/// functions, of the one that goes `k`th; imported functions keep their indices) and its data
/// segments written as `data` groups them (see [`data_plan`]; a group of more than one is
/// joined, its segments active at constant addresses in increasing order).
fn write(
    wasm: &[u8],
    scan: &Scan,
    order: &[usize],
    data: &[Vec<usize>],
) -> Result<Vec<u8>, String> {
    let mut reorder = Reorder {
        imported: scan.imported,
        new_of_old: inverse(order, scan.defined, "function")?,
        order: order.to_vec(),
        data_new_of_old: group_of(data, scan.segments.len())?,
        data_groups: data.to_vec(),
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
    data_new_of_old: Vec<u32>,
    data_groups: Vec<Vec<usize>>,
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

    fn data_index(&mut self, data: u32) -> Result<u32, ReencodeError<String>> {
        match self.data_new_of_old.get(data as usize) {
            Some(&new) => Ok(new),
            None => Err(ReencodeError::UserError(format!(
                "data segment index {data} is out of range"
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

    fn parse_data_section(
        &mut self,
        data: &mut wasm_encoder::DataSection,
        section: wasmparser::DataSectionReader<'_>,
    ) -> Result<(), ReencodeError<String>> {
        let segments = section.into_iter().collect::<Result<Vec<_>, _>>()?;
        for group in self.data_groups.clone() {
            if let [k] = group[..] {
                self.parse_data(data, item(&segments, k)?.clone())?;
                continue;
            }
            let at = |k: usize| {
                placed_at(item(&segments, k)?).ok_or_else(|| {
                    ReencodeError::UserError(format!(
                        "data segment {k} cannot be joined: it is not active at a constant address"
                    ))
                })
            };
            let start = at(group[0])?;
            let mut bytes = Vec::new();
            for &k in &group {
                let offset = at(k)?
                    .checked_sub(start)
                    .map(|o| o as usize)
                    .filter(|&o| o >= bytes.len())
                    .ok_or_else(|| {
                        ReencodeError::UserError(format!(
                            "data segment {k} overlaps the one before it, or lies below it"
                        ))
                    })?;
                bytes.resize(offset, 0);
                bytes.extend_from_slice(item(&segments, k)?.data);
            }
            data.active(
                0,
                &wasm_encoder::ConstExpr::i32_const(start as u32 as i32),
                bytes,
            );
        }
        Ok(())
    }

    fn data_count(&mut self, _count: u32) -> Result<u32, ReencodeError<String>> {
        Ok(self.data_groups.len() as u32)
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
        CodeSection, ConstExpr, DataCountSection, DataSection, ElementSection, Elements,
        EntityType, ExportKind, ExportSection, Function, FunctionSection, ImportSection,
        MemorySection, MemoryType, Module, RefType, TableSection, TableType, TypeSection, ValType,
    };

    /// The module with its functions in `order` and its segments grouped as `data`.
    fn reencode(wasm: &[u8], order: &[usize], data: &[Vec<usize>]) -> Result<Vec<u8>, String> {
        write(wasm, &scan(wasm)?, order, data)
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
        assert_eq!(reencode(&m, &[0, 1, 2], &[]).unwrap(), m);
    }

    #[test]
    fn every_index_follows_its_function() {
        // c, a, b: c becomes function 1 (after the import), a 2, b 3.
        let m = reencode(&module(), &[2, 0, 1], &[]).unwrap();
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
        assert!(reencode(&module(), &[0, 0, 1], &[]).is_err());
        assert!(reencode(&module(), &[0, 1], &[]).is_err());
        assert!(reencode(&module(), &[0, 1, 3], &[]).is_err());
        assert!(reencode(&module(), &[0, 1, 2], &[vec![0]]).is_err());
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

    /// One function that copies and drops passive segment 1; segments: "abcdefgh" at 0,
    /// "xy" passive, "z" at 16.
    fn data_module() -> Vec<u8> {
        data_module_with(true)
    }

    /// `data_module`, or without its passive segment: "abcdefgh" at 0, "z" at 16, and the
    /// function drops segment 1.
    fn data_module_with(passive: bool) -> Vec<u8> {
        let mut m = Module::new();
        let mut types = TypeSection::new();
        types.ty().function([], []);
        m.section(&types);
        let mut funcs = FunctionSection::new();
        funcs.function(0);
        m.section(&funcs);
        let mut memories = MemorySection::new();
        memories.memory(MemoryType {
            minimum: 1,
            maximum: None,
            memory64: false,
            shared: false,
            page_size_log2: None,
        });
        m.section(&memories);
        m.section(&DataCountSection {
            count: if passive { 3 } else { 2 },
        });
        let mut code = CodeSection::new();
        let mut f = Function::new([]);
        if passive {
            f.instructions()
                .i32_const(32)
                .i32_const(0)
                .i32_const(2)
                .memory_init(0, 1);
        }
        f.instructions().data_drop(1).end();
        code.function(&f);
        m.section(&code);
        let mut data = DataSection::new();
        data.active(0, &ConstExpr::i32_const(0), b"abcdefgh".iter().copied());
        if passive {
            data.passive(b"xy".iter().copied());
        }
        data.active(0, &ConstExpr::i32_const(16), b"z".iter().copied());
        m.section(&data);
        m.finish()
    }

    #[test]
    fn every_segment_index_follows_its_segment() {
        // xy, z, abcdefgh: the passive segment becomes segment 0.
        let m = reencode(&data_module(), &[0], &[vec![1], vec![2], vec![0]]).unwrap();
        wasmparser::Validator::new().validate_all(&m).unwrap();
        let mut got = Vec::new();
        for p in Parser::new(0).parse_all(&m) {
            if let Payload::DataSection(r) = p.unwrap() {
                for d in r {
                    let d = d.unwrap();
                    got.push((placed_at(&d), d.data.to_vec()));
                }
            }
        }
        let want = [(None, &b"xy"[..]), (Some(16), b"z"), (Some(0), b"abcdefgh")];
        assert_eq!(got, want.map(|(at, d)| (at, d.to_vec())));
        // i32.const 32, 0, 2 (0x41 each), memory.init 0 0 (0xfc 8), data.drop 0 (0xfc 9).
        assert_eq!(
            code(&m)[0],
            [
                0, 0x41, 32, 0x41, 0, 0x41, 2, 0xfc, 8, 0, 0, 0xfc, 9, 0, 0x0b
            ]
        );
        // The module as it was, in its own order.
        assert_eq!(
            reencode(&data_module(), &[0], &[vec![0], vec![1], vec![2]]).unwrap(),
            data_module()
        );
    }

    /// The data section's segments: where each is copied, and its bytes.
    fn segments(wasm: &[u8]) -> Vec<(Option<u64>, Vec<u8>)> {
        let mut got = Vec::new();
        for p in Parser::new(0).parse_all(wasm) {
            if let Payload::DataSection(r) = p.unwrap() {
                for d in r {
                    let d = d.unwrap();
                    got.push((placed_at(&d), d.data.to_vec()));
                }
            }
        }
        got
    }

    #[test]
    fn joined_segments_hold_the_same_bytes_at_the_same_addresses() {
        let m = reencode(&data_module_with(false), &[0], &[vec![0, 1]]).unwrap();
        wasmparser::Validator::new().validate_all(&m).unwrap();
        // "abcdefgh" at 0 and "z" at 16: one segment at 0, eight zeros between.
        assert_eq!(
            segments(&m),
            [(Some(0), b"abcdefgh\0\0\0\0\0\0\0\0z".to_vec())]
        );
        // data.drop 1 (0xfc 9 1) names the joined segment, 0; the count is 1.
        assert_eq!(code(&m)[0], [0, 0xfc, 9, 0, 0x0b]);
        let mut count = None;
        for p in Parser::new(0).parse_all(&m) {
            if let Payload::DataCountSection { count: c, .. } = p.unwrap() {
                count = Some(c);
            }
        }
        assert_eq!(count, Some(1));
        // The plan that `reorder` makes for it is that one.
        let seen: Vec<_> = segments(&data_module_with(false))
            .into_iter()
            .map(|(at, d)| at.map(|a| (a, d.len() as u64)))
            .collect();
        assert_eq!(data_plan(&seen, false), [vec![0, 1]]);
        assert_eq!(
            segments(&reorder(&data_module_with(false)).unwrap()),
            segments(&m)
        );
        // A passive segment cannot be joined, nor segments out of address order.
        assert!(reencode(&data_module(), &[0], &[vec![0, 1], vec![2]]).is_err());
        let e = reencode(&data_module_with(false), &[0], &[vec![1, 0]]).unwrap_err();
        assert!(
            e.contains("data segment 0 overlaps the one before it, or lies below it"),
            "{e}"
        );
    }

    #[test]
    fn segments_join_when_near_and_go_smallest_first() {
        let at = |a: u64, len: u64| Some((a, len));
        let far = JOIN_GAP + 1;
        // Near neighbours (gaps of 0 to JOIN_GAP bytes) become one group, by address.
        assert_eq!(
            data_plan(&[at(100, 8), at(0, 4), at(JOIN_GAP + 108, 2)], false),
            [vec![1, 0, 2]]
        );
        // Far apart: alone, smallest first (2, 4, 8 bytes); equal sizes by address.
        assert_eq!(
            data_plan(&[at(2 * far + 20, 8), at(0, 4), at(far + 10, 2)], false),
            [vec![2], vec![1], vec![0]]
        );
        assert_eq!(
            data_plan(&[at(2 * far, 2), at(0, 2)], false),
            [vec![1], vec![0]]
        );
        // A group is as large as the bytes it spans, gaps included: 0..12 against 1 byte.
        assert_eq!(
            data_plan(&[at(0, 4), at(10, 2), at(far + 12, 1)], false),
            [vec![2], vec![0, 1]]
        );
        // Overlapping (3..8 and 5..7): the later one's bytes win, so every segment stays as it
        // is. Touching is not overlapping.
        assert_eq!(
            data_plan(&[at(3, 5), at(5, 2), at(20, 1)], false),
            [vec![0], vec![1], vec![2]]
        );
        assert_eq!(data_plan(&[at(0, 5), at(5, 2)], false), [vec![0, 1]]);
        // A passive segment, or one at an address read from a global; an imported memory.
        assert_eq!(
            data_plan(&[at(0, 5), None, at(9, 1)], false),
            [vec![0], vec![1], vec![2]]
        );
        assert_eq!(data_plan(&[at(0, 5), at(9, 1)], true), [vec![0], vec![1]]);
        // The reordering's own reading of a module: passive and active segments.
        let seen: Vec<_> = segments(&data_module())
            .into_iter()
            .map(|(at, _)| at)
            .collect();
        assert_eq!(seen, [Some(0), None, Some(16)]);
    }
}
