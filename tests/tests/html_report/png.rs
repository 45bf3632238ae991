//! Just enough of PNG to check a screenshot: its size from `IHDR`, and whether its pixels
//! hold more than one colour (8-bit RGB or RGBA, not interlaced: what Chromium saves).

use std::io::Read;

/// A decoded screenshot's size and whether it is more than one flat colour.
#[derive(Debug, PartialEq, Eq)]
pub struct Picture {
    /// Pixels across.
    pub width: u32,
    /// Pixels down.
    pub height: u32,
    /// More than one distinct pixel value.
    pub colours: bool,
    /// The top-left pixel's channels (RGB or RGBA).
    pub corner: Vec<u8>,
}

fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}

/// Decodes `png`; panics naming what it cannot read.
pub fn decode(png: &[u8]) -> Picture {
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    let (mut at, mut ihdr, mut idat) = (8, None, Vec::new());
    while at + 12 <= png.len() {
        let len = be32(&png[at..]) as usize;
        let kind = &png[at + 4..at + 8];
        let data = &png[at + 8..at + 8 + len];
        match kind {
            b"IHDR" => ihdr = Some(data.to_vec()),
            b"IDAT" => idat.extend_from_slice(data),
            b"IEND" => break,
            _ => {}
        }
        at += 12 + len;
    }
    let ihdr = ihdr.expect("an IHDR chunk");
    let (width, height) = (be32(&ihdr[0..]), be32(&ihdr[4..]));
    let (depth, colour_type, interlace) = (ihdr[8], ihdr[9], ihdr[12]);
    let bpp = match (depth, colour_type, interlace) {
        (8, 2, 0) => 3,
        (8, 6, 0) => 4,
        other => panic!("unexpected PNG format (depth, colour type, interlace): {other:?}"),
    };
    let mut raw = Vec::new();
    flate2::read::ZlibDecoder::new(idat.as_slice())
        .read_to_end(&mut raw)
        .expect("the image data inflates");
    let pixels = unfilter(&raw, width as usize * bpp, height as usize, bpp);
    let first = &pixels[..bpp];
    let colours = pixels.chunks(bpp).any(|p| p != first);
    Picture {
        width,
        height,
        colours,
        corner: first.to_vec(),
    }
}

/// The scanlines of `raw` with PNG's per-line filters undone.
fn unfilter(raw: &[u8], stride: usize, height: usize, bpp: usize) -> Vec<u8> {
    assert_eq!(
        raw.len(),
        height * (stride + 1),
        "scanlines of the stated size"
    );
    let mut out = vec![0u8; stride * height];
    for y in 0..height {
        let filter = raw[y * (stride + 1)];
        let line = &raw[y * (stride + 1) + 1..(y + 1) * (stride + 1)];
        for x in 0..stride {
            let a = if x >= bpp {
                out[y * stride + x - bpp]
            } else {
                0
            };
            let b = if y > 0 { out[(y - 1) * stride + x] } else { 0 };
            let c = if x >= bpp && y > 0 {
                out[(y - 1) * stride + x - bpp]
            } else {
                0
            };
            let predicted = match filter {
                0 => 0,
                1 => a,
                2 => b,
                3 => ((u16::from(a) + u16::from(b)) / 2) as u8,
                4 => paeth(a, b, c),
                f => panic!("unknown PNG filter {f}"),
            };
            out[y * stride + x] = line[x].wrapping_add(predicted);
        }
    }
    out
}

fn paeth(a: u8, b: u8, c: u8) -> u8 {
    let p = i16::from(a) + i16::from(b) - i16::from(c);
    let (pa, pb, pc) = (
        (p - i16::from(a)).abs(),
        (p - i16::from(b)).abs(),
        (p - i16::from(c)).abs(),
    );
    if pa <= pb && pa <= pc {
        a
    } else if pb <= pc {
        b
    } else {
        c
    }
}
