<?xml version="1.0"?>
<!-- Sorting: books by genre (text), then price (number, descending), then id; and by year. -->
<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
  <xsl:output method="xml" indent="no" omit-xml-declaration="yes"/>
  <xsl:template match="/catalog">
    <report catalog="{@id}" region="{@region}">
      <table kind="by-genre">
        <xsl:for-each select="book">
          <xsl:sort select="@genre" data-type="text" lang="en" order="ascending"/>
          <xsl:sort select="price" data-type="number" order="descending"/>
          <xsl:sort select="@id" data-type="text" lang="en"/>
          <row n="{position()}" id="{@id}" genre="{@genre}">
            <xsl:value-of select="title"/>
            <xsl:text> | </xsl:text>
            <xsl:value-of select="format-number(price, '#,##0.00')"/>
            <xsl:if test="position() = last()"><last/></xsl:if>
          </row>
        </xsl:for-each>
      </table>
      <table kind="by-year">
        <xsl:for-each select="book[stock &gt; 0]">
          <xsl:sort select="@year" data-type="number"/>
          <xsl:sort select="title" data-type="text" lang="en" order="descending"/>
          <xsl:sort select="@id" data-type="text" lang="en"/>
          <row year="{@year}"><xsl:value-of select="concat(author, ': ', title)"/></row>
        </xsl:for-each>
      </table>
      <summary books="{count(book)}" in-stock="{count(book[stock &gt; 0])}"
               total="{format-number(sum(book/price), '0.00')}"
               cheapest="{book[not(../book/price &lt; price)][1]/@id}"/>
    </report>
  </xsl:template>
</xsl:stylesheet>
