//! The smoltcp adapter on the simulator: TCP between two MACs of one engine with the checksum
//! offloads toggled while the stream runs and corrupted frames on the wire (none may get in), the
//! capabilities it reports, and frames for one MAC waiting while the other's port polls.

mod support_sim;

use fe_driver::adapters::smoltcp::{MIN_FRAME, SmoltcpEth};
use fe_driver::{Eth, Features};
use fe_sim::Sim;
use smoltcp::iface::{Config, Interface, SocketSet};
use smoltcp::phy::{Checksum, Device, RxToken, TxToken};
use smoltcp::socket::tcp;
use smoltcp::time::Instant;
use smoltcp::wire::{EthernetAddress, HardwareAddress, IpAddress, IpCidr};
use support_sim::{SimPlatform, boards, probe};

fn iface(eth: &mut SmoltcpEth<SimPlatform<'_>>, mac: u8, last: u8) -> Interface {
    let mut cfg = Config::new(HardwareAddress::Ethernet(EthernetAddress([2, 0, 0, 0, 0, last])));
    cfg.random_seed = u64::from(last);
    let mut i = Interface::new(cfg, &mut eth.port(mac), Instant::ZERO);
    i.update_ip_addrs(|a| a.push(IpCidr::new(IpAddress::v4(10, 0, 0, last), 24)).unwrap());
    i
}

fn socket() -> tcp::Socket<'static> {
    let mut s = tcp::Socket::new(tcp::SocketBuffer::new(vec![0; 32768]), tcp::SocketBuffer::new(vec![0; 32768]));
    s.set_ack_delay(None);
    s
}

#[test]
fn tcp_through_two_macs_survives_feature_toggles_and_corruption() {
    const BYTES: usize = 300_000;
    let pat = |i: usize| (i % 251) as u8;
    let mut two_mac_boards = 0;
    for (name, dtb) in boards() {
        let board = probe(name, &dtb);
        let sim = Sim::for_board(&board);
        let mut eth = Eth::new(&board, SimPlatform(&sim)).unwrap();
        eth.open().unwrap();
        let macs: Vec<u8> = eth.enabled_macs().map(|m| m.id).collect();
        if macs.len() < 2 {
            println!("{name}: skipped, TCP between two MACs needs two enabled MACs");
            continue;
        }
        two_mac_boards += 1;
        for &m in &macs {
            if eth.mac(m).unwrap().link.is_none() {
                let l = fe_driver::LinkState { speed: 1000, duplex: fe_driver::dt::Duplex::Full, pause: true };
                eth.link_up(m, l).unwrap();
            }
        }
        let (a, b) = (macs[0], macs[1]);
        let mut eth = SmoltcpEth::<_>::new(eth);
        let caps = eth.port(a).capabilities();
        let c = &caps.checksum;
        assert!(matches!((&c.ipv4, &c.tcp, &c.udp), (Checksum::None, Checksum::None, Checksum::Both)), "{name}: {c:?}");
        let (mut ia, mut ib) = (iface(&mut eth, a, 1), iface(&mut eth, b, 2));
        let (mut sa, mut sb) = (SocketSet::new(vec![]), SocketSet::new(vec![]));
        let (c, s) = (sa.add(socket()), sb.add(socket()));
        sb.get_mut::<tcp::Socket>(s).listen(7).unwrap();
        sa.get_mut::<tcp::Socket>(c).connect(ia.context(), (IpAddress::v4(10, 0, 0, 2), 7), 40000).unwrap();
        let (mut sent, mut got, mut corrupted, mut data_frames, mut step) = (0, 0, 0u64, 0u64, 0u64);
        while got < BYTES {
            step += 1;
            assert!(step < 400_000, "{name}: stalled at {got} bytes");
            // Every 300 steps the next combination of RX/TX checksum offload, mid-stream.
            if step % 300 == 0 {
                let k = step / 300;
                let f =
                    Features { rx_checksum: k % 2 == 0, tx_checksum: k % 4 < 2, tso: false, ..eth.eth().features() };
                eth.eth_mut().set_features(f).unwrap();
            }
            let cs = sa.get_mut::<tcp::Socket>(c);
            if cs.can_send() && sent < BYTES {
                sent += cs
                    .send(|buf| {
                        let n = buf.len().min(BYTES - sent);
                        buf[..n].iter_mut().enumerate().for_each(|(k, x)| *x = pat(sent + k));
                        (n, n)
                    })
                    .unwrap();
            }
            let ss = sb.get_mut::<tcp::Socket>(s);
            while ss.can_recv() {
                got += ss
                    .recv(|buf| {
                        assert!(
                            buf.iter().enumerate().all(|(k, &x)| x == pat(got + k)),
                            "{name}: wrong byte near {got}"
                        );
                        (buf.len(), buf.len())
                    })
                    .unwrap();
            }
            let now = Instant::from_micros((sim.now() / 1000) as i64);
            ia.poll(now, &mut eth.port(a), &mut sa);
            ib.poll(now, &mut eth.port(b), &mut sb);
            for (from, to) in [(a, b), (b, a)] {
                for (_, mut f) in sim.take_sent(usize::from(from)) {
                    if f.len() > 1000 {
                        data_frames += 1;
                        if data_frames % 37 == 0 {
                            let i = f.len() / 2;
                            f[i] ^= 0x81;
                            corrupted += 1;
                        }
                    }
                    sim.send_to_mac(usize::from(to), f);
                }
            }
            sim.advance(10_000);
        }
        let st = eth.stats();
        assert!(corrupted > 3, "{name}: the test corrupted too little ({corrupted})");
        assert_eq!(st.rx_csum_bad, corrupted, "{name}: every corrupted frame dropped, no other: {st:?}");
        assert!(st.rx_hw_verified > 0 && st.rx_sw_verified > 0 && st.tx_sw_csum > 0, "{name}: both paths ran: {st:?}");
        assert_eq!(st.tx_refused, 0, "{name}");
        assert!(sim.violations().is_empty(), "{name}: {:?}", sim.violations());
    }
    assert!(two_mac_boards > 0, "no bundled board has two enabled MACs");
}

#[test]
fn frames_wait_for_their_port_and_short_frames_are_padded() {
    // A board whose MACs 0 and 1 are both enabled (the test sends to both).
    let all = boards();
    let (name, dtb) = all
        .iter()
        .find(|(n, d)| {
            let b = probe(n, d);
            [0, 1].iter().all(|&id| b.enabled_macs().any(|m| m.id == id))
        })
        .expect("no bundled board has MACs 0 and 1 enabled");
    let board = probe(name, dtb);
    let sim = Sim::for_board(&board);
    let mut eth = Eth::new(&board, SimPlatform(&sim)).unwrap();
    eth.open().unwrap();
    let mut eth = SmoltcpEth::<_, 2048, 4>::new(eth);
    // A 42-byte frame (an ARP request's size) goes out padded to the Ethernet minimum.
    let mut port = eth.port(0);
    port.transmit(Instant::ZERO).unwrap().consume(42, |b| b.fill(0xab));
    sim.advance(100_000);
    let sent = sim.take_sent(0);
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].1.len(), MIN_FRAME);
    assert!(sent[0].1[..42].iter().all(|&x| x == 0xab) && sent[0].1[42..].iter().all(|&x| x == 0));
    // Three frames for MAC 1 and one for MAC 0: MAC 0's port gets its frame, MAC 1's wait.
    for (mac, tag) in [(1, 1u8), (1, 2), (0, 3), (1, 4)] {
        let mut f = vec![0u8; 64];
        f[12] = 0x88; // not IP: no checksum to check
        f[20] = tag;
        sim.send_to_mac(mac, f);
    }
    sim.advance(100_000);
    let mut port = eth.port(0);
    assert_eq!(port.receive(Instant::ZERO).unwrap().0.consume(|f| f[20]), 3);
    assert!(port.receive(Instant::ZERO).is_none());
    assert_eq!(eth.stashed(), 3);
    let mut port = eth.port(1);
    let tags: Vec<u8> = (0..3).map(|_| port.receive(Instant::ZERO).unwrap().0.consume(|f| f[20])).collect();
    assert_eq!(tags, [1, 2, 4], "in arrival order");
    assert_eq!(eth.stats().rx_frames, 4);
}
