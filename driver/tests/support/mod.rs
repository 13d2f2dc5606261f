//! A small flattened-device-tree writer for tests: build a tree in code, get DTB bytes.

#![allow(dead_code)]

/// A node under construction.
#[derive(Clone, Debug, Default)]
pub struct Node {
    pub name: String,
    pub props: Vec<(String, Vec<u8>)>,
    pub children: Vec<Node>,
}

impl Node {
    pub fn new(name: &str) -> Self {
        Node { name: name.into(), ..Node::default() }
    }
    pub fn raw(mut self, name: &str, value: &[u8]) -> Self {
        self.set(name, value.to_vec());
        self
    }
    pub fn cells(self, name: &str, cells: &[u32]) -> Self {
        let v: Vec<u8> = cells.iter().flat_map(|c| c.to_be_bytes()).collect();
        self.raw(name, &v)
    }
    pub fn str(self, name: &str, s: &str) -> Self {
        self.strs(name, &[s])
    }
    pub fn strs(self, name: &str, list: &[&str]) -> Self {
        let mut v = Vec::new();
        for s in list {
            v.extend_from_slice(s.as_bytes());
            v.push(0);
        }
        self.raw(name, &v)
    }
    pub fn flag(self, name: &str) -> Self {
        self.raw(name, &[])
    }
    pub fn child(mut self, c: Node) -> Self {
        self.children.push(c);
        self
    }
    /// Sets or replaces a property.
    pub fn set(&mut self, name: &str, value: Vec<u8>) {
        match self.props.iter_mut().find(|(n, _)| n == name) {
            Some(p) => p.1 = value,
            None => self.props.push((name.into(), value)),
        }
    }
    pub fn remove(&mut self, name: &str) {
        self.props.retain(|(n, _)| n != name);
    }
    /// The node at `path` (`/ethernet@1e100000/mac@0`), for edits.
    pub fn at(&mut self, path: &str) -> &mut Node {
        let mut n = self;
        for part in path.split('/').filter(|p| !p.is_empty()) {
            n = n.children.iter_mut().find(|c| c.name == part).unwrap_or_else(|| panic!("no node {part} in {path}"));
        }
        n
    }
}

/// Serialises `root` as a version-17 DTB.
pub fn dtb(root: &Node) -> Vec<u8> {
    let mut strings: Vec<u8> = Vec::new();
    let mut structure: Vec<u8> = Vec::new();
    fn name_off(strings: &mut Vec<u8>, name: &str) -> u32 {
        let mut i = 0;
        while i < strings.len() {
            let end = strings[i..].iter().position(|&b| b == 0).unwrap() + i;
            if &strings[i..end] == name.as_bytes() {
                return i as u32;
            }
            i = end + 1;
        }
        let off = strings.len() as u32;
        strings.extend_from_slice(name.as_bytes());
        strings.push(0);
        off
    }
    fn pad(v: &mut Vec<u8>) {
        while !v.len().is_multiple_of(4) {
            v.push(0);
        }
    }
    fn emit(n: &Node, s: &mut Vec<u8>, strings: &mut Vec<u8>) {
        s.extend_from_slice(&1u32.to_be_bytes());
        s.extend_from_slice(n.name.as_bytes());
        s.push(0);
        pad(s);
        for (name, value) in &n.props {
            s.extend_from_slice(&3u32.to_be_bytes());
            s.extend_from_slice(&(value.len() as u32).to_be_bytes());
            s.extend_from_slice(&name_off(strings, name).to_be_bytes());
            s.extend_from_slice(value);
            pad(s);
        }
        for c in &n.children {
            emit(c, s, strings);
        }
        s.extend_from_slice(&2u32.to_be_bytes());
    }
    emit(root, &mut structure, &mut strings);
    structure.extend_from_slice(&9u32.to_be_bytes());
    let off_rsv = 40u32;
    let off_struct = off_rsv + 16;
    let off_strings = off_struct + structure.len() as u32;
    let total = off_strings + strings.len() as u32;
    let mut out = Vec::new();
    for w in
        [0xd00d_feed, total, off_struct, off_strings, off_rsv, 17, 16, 0, strings.len() as u32, structure.len() as u32]
    {
        out.extend_from_slice(&u32::to_be_bytes(w));
    }
    out.extend_from_slice(&[0u8; 16]);
    out.extend_from_slice(&structure);
    out.extend_from_slice(&strings);
    out
}

/// An MT7621 board like dts/mt7621-router.dts: gmac0 trgmii fixed 1000 to the switch's CPU
/// port 6, gmac1 rgmii fixed 1000, user ports wan, lan1..lan4.
pub fn mt7621_board() -> Node {
    let fixed = |speed: u32| Node::new("fixed-link").cells("speed", &[speed]).flag("full-duplex").flag("pause");
    let mut ports = Node::new("ports").cells("#address-cells", &[1]).cells("#size-cells", &[0]);
    for (i, label) in ["wan", "lan1", "lan2", "lan3", "lan4"].iter().enumerate() {
        ports = ports.child(Node::new(&format!("port@{i}")).cells("reg", &[i as u32]).str("label", label));
    }
    ports = ports.child(
        Node::new("port@6").cells("reg", &[6]).cells("ethernet", &[3]).str("phy-mode", "trgmii").child(fixed(1000)),
    );
    Node::new("")
        .cells("#address-cells", &[1])
        .cells("#size-cells", &[1])
        .str("compatible", "mediatek,mt7621-soc")
        .child(
            Node::new("interrupt-controller@1fbc0000")
                .str("compatible", "mti,gic")
                .flag("interrupt-controller")
                .cells("#interrupt-cells", &[3])
                .cells("phandle", &[1])
                .cells("reg", &[0x1fbc_0000, 0x2000]),
        )
        .child(
            Node::new("syscon@1e000000")
                .strs("compatible", &["mediatek,mt7621-sysc", "syscon"])
                .cells("reg", &[0x1e00_0000, 0x100])
                .cells("#clock-cells", &[1])
                .cells("phandle", &[2]),
        )
        .child(
            Node::new("ethernet@1e100000")
                .str("compatible", "mediatek,mt7621-eth")
                .cells("reg", &[0x1e10_0000, 0x10000])
                .cells("#address-cells", &[1])
                .cells("#size-cells", &[0])
                .cells("interrupt-parent", &[1])
                .cells("interrupts", &[0, 3, 4])
                .cells("clocks", &[2, 1, 2, 2])
                .strs("clock-names", &["fe", "ethif"])
                .cells("mediatek,ethsys", &[2])
                .child(
                    Node::new("mac@0")
                        .str("compatible", "mediatek,eth-mac")
                        .cells("reg", &[0])
                        .str("phy-mode", "trgmii")
                        .cells("phandle", &[3])
                        .child(fixed(1000)),
                )
                .child(
                    Node::new("mac@1")
                        .str("compatible", "mediatek,eth-mac")
                        .cells("reg", &[1])
                        .str("phy-mode", "rgmii")
                        .cells("phandle", &[4])
                        .child(fixed(1000)),
                )
                .child(Node::new("mdio-bus").cells("#address-cells", &[1]).cells("#size-cells", &[0]).child(
                    Node::new("switch@1f").str("compatible", "mediatek,mt7621").cells("reg", &[0x1f]).child(ports),
                )),
        )
}

/// Path of the Ethernet node in [`mt7621_board`].
pub const ETH: &str = "/ethernet@1e100000";
