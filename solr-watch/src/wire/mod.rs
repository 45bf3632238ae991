//! What is on the wire, leaves first: link-layer frames into TCP segments ([`packet`]),
//! segments into connections ([`tcp`], [`conn`]), HTTP/1.1 ([`http`]) and HTTP/2 with its
//! header compression ([`http2`], [`hpack`]) into requests and responses, and what Solr said
//! in them ([`solr`], [`facts`], [`xmljson`]).

pub mod conn;
pub mod facts;
pub mod hpack;
pub mod http;
pub mod http2;
pub mod packet;
pub mod solr;
pub mod tcp;
pub mod xmljson;
